import { defaultRepeat, describeRule, type Frequency, parseRule, type Repeat, ruleOf, WEEKDAY_NAMES, WEEKDAYS, type Weekday } from '../recurrence';

const FREQUENCIES: Record<Frequency | '', string> = { '': 'Does not repeat', DAILY: 'Daily', WEEKLY: 'Weekly', MONTHLY: 'Monthly', YEARLY: 'Yearly' };
const UNIT_PLURALS: Record<Frequency, string> = { DAILY: 'days', WEEKLY: 'weeks', MONTHLY: 'months', YEARLY: 'years' };
const SET_POSITIONS: Record<string, string> = { '1': 'first', '2': 'second', '3': 'third', '4': 'fourth', '-1': 'last' };

/**
 * The task dialog's recurrence picker: how often, and for weekly and monthly rules on which days,
 * until when; the rule it makes (`value`, '' for none) said in words beneath. A rule made through
 * the API that the picker cannot show stays as it is until another frequency is chosen.
 */
export function RecurrencePicker({ value, hasDueDate, onChange }: { value: string; hasDueDate: boolean; onChange: (rule: string) => void }) {
  const repeat = value ? parseRule(value) : undefined;
  const update = (change: Partial<Repeat>) => repeat && onChange(ruleOf({ ...repeat, ...change }));
  const number = (event: { currentTarget: HTMLInputElement }) => Math.max(1, Math.floor(Number(event.currentTarget.value) || 1));
  return (
    <fieldset class="stack recurrence-picker">
      <legend>Repeat</legend>
      <label>
        Repeats
        <select
          value={value ? (repeat?.freq ?? 'custom') : ''}
          onChange={(e) => {
            const freq = e.currentTarget.value as Frequency | '';
            onChange(freq ? ruleOf(defaultRepeat(freq)) : '');
          }}
        >
          {Object.entries(FREQUENCIES).map(([freq, label]) => (
            <option key={freq} value={freq}>
              {label}
            </option>
          ))}
          {value && !repeat && <option value="custom">Custom rule</option>}
        </select>
      </label>
      {repeat && (
        <div class="row wrap">
          <label>
            Every
            <input type="number" min={1} max={999} value={repeat.interval} onInput={(e) => update({ interval: number(e) })} aria-label={`Every how many ${UNIT_PLURALS[repeat.freq]}`} />
          </label>
          <span>{UNIT_PLURALS[repeat.freq]}</span>
        </div>
      )}
      {repeat?.freq === 'WEEKLY' && (
        <fieldset class="row wrap">
          <legend>On</legend>
          {WEEKDAYS.map((day) => (
            <label key={day} class="check">
              <input
                type="checkbox"
                checked={repeat.days.includes(day)}
                onChange={() => update({ days: repeat.days.includes(day) ? repeat.days.filter((other) => other !== day) : [...repeat.days, day] })}
              />
              {WEEKDAY_NAMES[day]}
            </label>
          ))}
        </fieldset>
      )}
      {repeat?.freq === 'MONTHLY' && (
        <div class="row wrap">
          <label>
            Monthly on
            <select value={repeat.monthly} onChange={(e) => update({ monthly: e.currentTarget.value as Repeat['monthly'] })}>
              <option value="day">a day of the month</option>
              <option value="weekday">a weekday of the month</option>
            </select>
          </label>
          {repeat.monthly === 'day' ? (
            <label>
              Day
              <select value={String(repeat.monthDay)} onChange={(e) => update({ monthDay: Number(e.currentTarget.value) })}>
                {Array.from({ length: 31 }, (_, index) => (
                  <option key={index} value={String(index + 1)}>
                    {index + 1}
                  </option>
                ))}
                <option value="-1">last day</option>
              </select>
            </label>
          ) : (
            <>
              <label>
                Which
                <select value={String(repeat.setPos)} onChange={(e) => update({ setPos: Number(e.currentTarget.value) })}>
                  {Object.entries(SET_POSITIONS).map(([position, label]) => (
                    <option key={position} value={position}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Day of the week
                <select value={repeat.weekday} onChange={(e) => update({ weekday: e.currentTarget.value as Weekday })}>
                  {WEEKDAYS.map((day) => (
                    <option key={day} value={day}>
                      {WEEKDAY_NAMES[day]}
                    </option>
                  ))}
                </select>
              </label>
            </>
          )}
        </div>
      )}
      {repeat && (
        <div class="row wrap">
          <label>
            Ends
            <select value={repeat.end} onChange={(e) => update({ end: e.currentTarget.value as Repeat['end'] })}>
              <option value="never">never</option>
              <option value="count">after a number of times</option>
              <option value="until">on a date</option>
            </select>
          </label>
          {repeat.end === 'count' && (
            <label>
              Occurrences
              <input type="number" min={1} max={9999} value={repeat.count} onInput={(e) => update({ count: number(e) })} />
            </label>
          )}
          {repeat.end === 'until' && (
            <label>
              Last date
              <input type="date" value={repeat.until} onInput={(e) => update({ until: e.currentTarget.value })} />
            </label>
          )}
        </div>
      )}
      {value && (
        <p class="muted small" data-testid="recurrence-words">
          Repeats {describeRule(value)}
          {!hasDueDate && ' (needs a due date: the next one is due a step after it)'}
        </p>
      )}
    </fieldset>
  );
}
