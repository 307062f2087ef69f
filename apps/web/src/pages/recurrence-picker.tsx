import { t } from '../i18n';
import { defaultRepeat, describeRule, type Frequency, FREQUENCIES, parseRule, type Repeat, ruleOf, weekdayName, WEEKDAYS, type Weekday } from '../recurrence';

/** The nth weekdays the picker offers (BYSETPOS), each with its word's key in the catalogue. */
const SET_POSITIONS = [
  ['1', 'first'],
  ['2', 'second'],
  ['3', 'third'],
  ['4', 'fourth'],
  ['-1', 'last'],
] as const;

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
      <legend>{t('recurrencePicker.legend')}</legend>
      <label>
        {t('recurrencePicker.repeats')}
        <select
          value={value ? (repeat?.freq ?? 'custom') : ''}
          onChange={(e) => {
            const freq = e.currentTarget.value as Frequency | '';
            onChange(freq ? ruleOf(defaultRepeat(freq)) : '');
          }}
        >
          <option value="">{t('recurrencePicker.frequency.none')}</option>
          {FREQUENCIES.map((freq) => (
            <option key={freq} value={freq}>
              {t(`recurrencePicker.frequency.${freq}`)}
            </option>
          ))}
          {value && !repeat && <option value="custom">{t('recurrencePicker.customRule')}</option>}
        </select>
      </label>
      {repeat && (
        <div class="row wrap">
          <label>
            {t('recurrencePicker.every')}
            <input
              type="number"
              min={1}
              max={999}
              value={repeat.interval}
              onInput={(e) => update({ interval: number(e) })}
              aria-label={t(`recurrencePicker.everyHowMany.${repeat.freq}`)}
            />
          </label>
          <span>{t(`recurrencePicker.units.${repeat.freq}`)}</span>
        </div>
      )}
      {repeat?.freq === 'WEEKLY' && (
        <fieldset class="row wrap">
          <legend>{t('recurrencePicker.on')}</legend>
          {WEEKDAYS.map((day) => (
            <label key={day} class="check">
              <input
                type="checkbox"
                checked={repeat.days.includes(day)}
                onChange={() => update({ days: repeat.days.includes(day) ? repeat.days.filter((other) => other !== day) : [...repeat.days, day] })}
              />
              {weekdayName(day)}
            </label>
          ))}
        </fieldset>
      )}
      {repeat?.freq === 'MONTHLY' && (
        <div class="row wrap">
          <label>
            {t('recurrencePicker.monthlyOn')}
            <select value={repeat.monthly} onChange={(e) => update({ monthly: e.currentTarget.value as Repeat['monthly'] })}>
              <option value="day">{t('recurrencePicker.byMonthDay')}</option>
              <option value="weekday">{t('recurrencePicker.byWeekday')}</option>
            </select>
          </label>
          {repeat.monthly === 'day' ? (
            <label>
              {t('recurrencePicker.day')}
              <select value={String(repeat.monthDay)} onChange={(e) => update({ monthDay: Number(e.currentTarget.value) })}>
                {Array.from({ length: 31 }, (_, index) => (
                  <option key={index} value={String(index + 1)}>
                    {index + 1}
                  </option>
                ))}
                <option value="-1">{t('recurrencePicker.lastDay')}</option>
              </select>
            </label>
          ) : (
            <>
              <label>
                {t('recurrencePicker.which')}
                <select value={String(repeat.setPos)} onChange={(e) => update({ setPos: Number(e.currentTarget.value) })}>
                  {SET_POSITIONS.map(([position, word]) => (
                    <option key={position} value={position}>
                      {t(`recurrencePicker.position.${word}`)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                {t('recurrencePicker.weekday')}
                <select value={repeat.weekday} onChange={(e) => update({ weekday: e.currentTarget.value as Weekday })}>
                  {WEEKDAYS.map((day) => (
                    <option key={day} value={day}>
                      {weekdayName(day)}
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
            {t('recurrencePicker.ends')}
            <select value={repeat.end} onChange={(e) => update({ end: e.currentTarget.value as Repeat['end'] })}>
              <option value="never">{t('recurrencePicker.end.never')}</option>
              <option value="count">{t('recurrencePicker.end.count')}</option>
              <option value="until">{t('recurrencePicker.end.until')}</option>
            </select>
          </label>
          {repeat.end === 'count' && (
            <label>
              {t('recurrencePicker.occurrences')}
              <input type="number" min={1} max={9999} value={repeat.count} onInput={(e) => update({ count: number(e) })} />
            </label>
          )}
          {repeat.end === 'until' && (
            <label>
              {t('recurrencePicker.lastDate')}
              <input type="date" value={repeat.until} onInput={(e) => update({ until: e.currentTarget.value })} />
            </label>
          )}
        </div>
      )}
      {value && (
        <p class="muted small" data-testid="recurrence-words">
          {t('recurrencePicker.summary', { rule: describeRule(value) })}
          {!hasDueDate && t('recurrencePicker.needsDueDate')}
        </p>
      )}
    </fieldset>
  );
}
