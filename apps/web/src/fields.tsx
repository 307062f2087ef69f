import type { Field, FieldType, FieldValue, Member } from '@tasklane/schemas';
import { FIELD_TYPES } from '@tasklane/schemas/constants';
import { fieldKeys, loadFields } from './data';
import { memberName } from './format';
import { useQuery } from './hooks';
import { dateFormat, t } from './i18n';

/** Custom fields' shared pieces: their types in words, the project's fields, and a value as the list and dialog show it. */
export const fieldTypeLabel = (type: FieldType): string => t(`fields.types.${type}`);
export { FIELD_TYPES };

/** Whether a field of the type has options (select and multi_select). */
export const hasOptions = (type: FieldType) => type === 'select' || type === 'multi_select';

/** A project's custom fields, in order; the live stream refreshes them on every field event. */
export const useFields = (projectId: string) => useQuery(fieldKeys.fields(projectId), () => loadFields(projectId));

/** A `YYYY-MM-DD` value is a calendar day, not an instant: shown as that day wherever the reader is. */
const formatCalendarDay = (day: string) => {
  const [year, month, date] = day.split('-').map(Number);
  return year && month && date ? dateFormat({ day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(year, month - 1, date)) : day;
};

/** A task's value of a field, for reading (the list's cells, a viewer's dialog); nothing when it has none. */
export function FieldValueView({ field, value, members }: { field: Field; value: FieldValue | undefined; members: Member[] }) {
  if (value === undefined || value === null) return <span class="muted">—</span>;
  switch (field.type) {
    case 'select':
    case 'multi_select': {
      const ids = Array.isArray(value) ? value : [String(value)];
      const chosen = field.options.filter((option) => ids.includes(option.id));
      return (
        <span class="field-options">
          {chosen.map((option) => (
            <span key={option.id} class="label-chip">
              <span class="dot" style={{ background: option.color }} aria-hidden="true" />
              {option.name}
            </span>
          ))}
        </span>
      );
    }
    case 'user':
      return <span>{memberName(members, String(value))}</span>;
    case 'checkbox':
      return <span>{value ? t('common.yes') : t('common.no')}</span>;
    case 'date':
      return <time dateTime={String(value)}>{formatCalendarDay(String(value))}</time>;
    case 'url':
      // A link only for http(s): a stored javascript: or data: address stays text, never an href.
      return isWebAddress(String(value)) ? (
        <a href={String(value)} target="_blank" rel="noopener noreferrer">
          {String(value)}
        </a>
      ) : (
        <span>{String(value)}</span>
      );
    default:
      return <span>{String(value)}</span>;
  }
}

/** Whether an address is an http: or https: URL (the only ones rendered as links). */
export function isWebAddress(address: string): boolean {
  try {
    const { protocol } = new URL(address);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
