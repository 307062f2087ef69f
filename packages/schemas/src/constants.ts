/*
 * The plain values (enums, limits, defaults) the schemas are built from that the web app needs too:
 * no Zod here, so that '@tasklane/schemas/constants' gives the browser these values without loading
 * Zod and building every schema (about 40 KB gzipped, and the board's first render's time on a slow
 * phone). Each resource's schema file re-exports its own, so '@tasklane/schemas' offers them as before.
 */

// Accounts
/** The languages the web app and the emails speak (issue 39), English first: the fallback of any missing message. */
export const LOCALES = ['en', 'de', 'fr', 'es', 'ja'] as const;
export type Locale = (typeof LOCALES)[number];
/** Whether a value (a saved choice, a browser's code) is one of the languages offered. */
export const isLocale = (value: unknown): value is Locale => LOCALES.includes(value as Locale);

// Projects
export const ESTIMATE_UNITS = ['points', 'hours'] as const;

// Activity
/** Every kind of change the activity history, the live stream and webhooks report. */
export const ACTIVITY_TYPES = [
  'project.created',
  'project.updated',
  'project.deleted',
  'member.added',
  'member.updated',
  'member.removed',
  'invitation.created',
  'invitation.deleted',
  'invitation.accepted',
  'task.created',
  'task.updated',
  'task.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'label.created',
  'label.updated',
  'label.deleted',
  'state.created',
  'state.updated',
  'state.deleted',
  'relation.created',
  'relation.deleted',
  'attachment.created',
  'attachment.deleted',
  'field.created',
  'field.updated',
  'field.deleted',
  'time_entry.created',
  'time_entry.updated',
  'time_entry.deleted',
  'view.created',
  'view.updated',
  'view.deleted',
] as const;

// Workflow states
/** The categories of workflow states, in the order a board groups them. */
export const STATE_CATEGORIES = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'] as const;
/** The colour of a state of each category when none is given. */
export const DEFAULT_STATE_COLORS = {
  backlog: '#9ca3af',
  unstarted: '#6b7280',
  started: '#2563eb',
  completed: '#16a34a',
  cancelled: '#dc2626',
} as const satisfies Record<(typeof STATE_CATEGORIES)[number], string>;

// Custom fields
/** The types of a custom field. */
export const FIELD_TYPES = ['text', 'number', 'date', 'select', 'multi_select', 'user', 'checkbox', 'url'] as const;
export const FIELD_NAME_MAX = 50;
export const FIELD_OPTION_NAME_MAX = 50;
/** The longest `text` value, in code points. */
export const FIELD_TEXT_MAX = 2000;
/** The longest `url` value. */
export const FIELD_URL_MAX = 2000;
/** The colour of an option given without one. */
export const DEFAULT_OPTION_COLOR = '#6b7280';

// Comments
export const COMMENT_TEXT_MAX = 20_000;

// Labels
export const LABEL_NAME_MAX = 50;
/** The colour a label gets when none is given. */
export const DEFAULT_LABEL_COLOR = '#6b7280';

// Time tracking
export const TIME_REPORT_GROUPS = ['user', 'task', 'day'] as const;
