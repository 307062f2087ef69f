import type { StateCategory } from '@tasklane/schemas';

/**
 * The category a workflow state's name suggests, as teams name their columns ("Done", "In
 * progress", "Backlog", "Won't do"), `otherwise` when it suggests none.
 */
export function categoryOfName(name: string, otherwise: StateCategory): StateCategory {
  const words = name.toLowerCase();
  if (/\b(done|complete[d]?|closed|resolved|finished|shipped|released)\b/.test(words)) return 'completed';
  if (/\b(cancel+ed|won'?t (do|fix)|rejected|declined|duplicate|abandoned|not planned)\b/.test(words)) return 'cancelled';
  if (/\b(backlog|icebox|ideas?|someday|brainstorm(ing)?|inbox)\b/.test(words)) return 'backlog';
  if (/\b(to ?do|open|new|planned|ready|selected)\b/.test(words)) return 'unstarted';
  if (/\b(doing|in progress|progress|review|testing|qa|started|active|blocked|wip)\b/.test(words)) return 'started';
  return otherwise;
}
