import { DEFAULT_STATES, STATE_NAME_MAX, type StateCategory } from '@tasklane/schemas';
import { clipComment, clipDescription, clipTitle, colorOf, dateOf, formatError, type ImportPlan, type PlannedPerson, type PlannedTask, uniqueName } from '../plan';
import { categoryOfName } from './states';
import { arrayOf, isRecord, type JsonKeep, pickKeys, readJson, textOf } from './json';

const CANCELLED = 'Cancelled';
const DONE = 'Done';

/**
 * What the plan reads of a board, as the file streams: of each card only what becomes its task, of
 * the actions only the comments (most of a large board's file is its actions, each repeating the
 * board, list and member it touched).
 */
const TRELLO_KEEP: JsonKeep = {
  name: true,
  desc: true,
  members: true,
  lists: true,
  labels: true,
  checklists: true,
  cards: (card) =>
    isRecord(card)
      ? { ...pickKeys(card, ['id', 'idList', 'closed', 'pos', 'name', 'desc', 'idMembers', 'idLabels', 'due', 'start']), attachments: arrayOf(card.attachments).filter(isRecord).map((attachment) => pickKeys(attachment, ['name', 'url'])) }
      : card,
  actions: (action) =>
    isRecord(action) && action.type === 'commentCard' && isRecord(action.data) && isRecord(action.data.card)
      ? {
          type: action.type,
          date: action.date,
          idMemberCreator: action.idMemberCreator,
          memberCreator: isRecord(action.memberCreator) ? pickKeys(action.memberCreator, ['fullName', 'username']) : undefined,
          data: { text: action.data.text, card: { id: action.data.card.id } },
        }
      : undefined,
};

/**
 * `trello`: a board's JSON export (Menu → Print, export and share → Export as JSON). Lists become
 * states in their order (a closed list's cards, and archived cards, go to Cancelled); cards become
 * tasks in list order; labels keep the nearest colour (an unnamed label is named by its colour);
 * each checklist item becomes a subtask, done when ticked; `commentCard` actions become comments;
 * due dates stay; attachments become links at the end of the description. Trello's export names
 * people but gives no email, so assignments come back as warnings unless an email is in the file.
 */
export async function trelloPlan(file: NodeJS.ReadableStream): Promise<ImportPlan> {
  const board = await readJson(file, "a Trello board's export", TRELLO_KEEP);
  if (!isRecord(board) || !Array.isArray(board.lists) || !Array.isArray(board.cards) || typeof board.name !== 'string') {
    throw formatError("The file is not a Trello board's JSON export: it needs the board's name, lists and cards");
  }
  const plan: ImportPlan = { project: { name: textOf(board.name) || 'Trello board', description: textOf(board.desc) }, states: [], labels: [], fields: [], tasks: [], warnings: [] };
  const byPos = (a: unknown, b: unknown) => Number((a as { pos?: unknown }).pos ?? 0) - Number((b as { pos?: unknown }).pos ?? 0);

  const members = new Map<string, PlannedPerson>();
  for (const member of arrayOf(board.members).filter(isRecord)) {
    const email = textOf(member.email);
    members.set(textOf(member.id), { name: textOf(member.fullName) || textOf(member.username), ...(email ? { email } : {}) });
  }

  // Lists → states, in board order; names made unique, as a project's state names are.
  const stateOfList = new Map<string, string>();
  const closedLists = new Set<string>();
  const used = new Set<string>();
  for (const list of arrayOf(board.lists).filter(isRecord).sort(byPos)) {
    if (list.closed === true) {
      closedLists.add(textOf(list.id));
      continue;
    }
    const name = uniqueName(textOf(list.name), used, STATE_NAME_MAX, 'Untitled list');
    stateOfList.set(textOf(list.id), name);
    plan.states.push({ name, category: categoryOfName(name, plan.states.length === 0 ? 'unstarted' : 'started') });
  }
  ensureCategory(plan, 'unstarted', 'To do');
  const doneState = ensureCategory(plan, 'completed', DONE);
  const cancelledState = ensureCategory(plan, 'cancelled', CANCELLED);
  const firstOpen = plan.states.find((state) => state.category === 'unstarted')!.name;

  // Labels: Trello allows unnamed ones (a colour only), named here by their colour.
  const labelName = new Map<string, string>();
  const seen = new Set<string>();
  for (const label of arrayOf(board.labels).filter(isRecord)) {
    const name = (textOf(label.name) || textOf(label.color) || 'label').trim();
    labelName.set(textOf(label.id), name);
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    plan.labels.push({ name, color: colorOf(label.color) });
  }

  const commentsOf = new Map<string, PlannedTask['comments']>();
  // The export lists actions newest first: comments are read oldest first.
  for (const action of arrayOf(board.actions).filter(isRecord).reverse()) {
    if (action.type !== 'commentCard' || !isRecord(action.data) || !isRecord(action.data.card)) continue;
    const cardId = textOf(action.data.card.id);
    const creator = isRecord(action.memberCreator) ? { name: textOf(action.memberCreator.fullName) || textOf(action.memberCreator.username) } : members.get(textOf(action.idMemberCreator));
    const list = commentsOf.get(cardId) ?? [];
    const createdAt = dateOf(action.date);
    list.push({ author: creator, text: clipComment(textOf(action.data.text)), ...(createdAt ? { createdAt } : {}) });
    commentsOf.set(cardId, list);
  }

  const checklistsOf = new Map<string, Record<string, unknown>[]>();
  for (const checklist of arrayOf(board.checklists).filter(isRecord).sort(byPos)) {
    const list = checklistsOf.get(textOf(checklist.idCard)) ?? [];
    list.push(checklist);
    checklistsOf.set(textOf(checklist.idCard), list);
  }

  const listOrder = new Map([...stateOfList.keys()].map((id, index) => [id, index]));
  const cards = arrayOf(board.cards)
    .filter(isRecord)
    .sort((a, b) => (listOrder.get(textOf(a.idList)) ?? 1e9) - (listOrder.get(textOf(b.idList)) ?? 1e9) || byPos(a, b));
  for (const card of cards) {
    const cardId = textOf(card.id);
    const archived = card.closed === true || closedLists.has(textOf(card.idList));
    const state = archived ? cancelledState : (stateOfList.get(textOf(card.idList)) ?? firstOpen);
    const links = arrayOf(card.attachments).filter(isRecord).map((attachment) => `- [${textOf(attachment.name) || textOf(attachment.url)}](${textOf(attachment.url)})`);
    const description = [textOf(card.desc), ...(links.length > 0 ? ['', '**Attachments**', ...links] : [])].join('\n').trim();
    const people = arrayOf(card.idMembers).map((id) => members.get(textOf(id))).filter((person) => person !== undefined);
    const dueDate = dateOf(card.due);
    const startDate = dateOf(card.start);
    const task: PlannedTask = {
      ref: cardId,
      title: clipTitle(textOf(card.name)),
      description: clipDescription(description),
      state,
      labels: arrayOf(card.idLabels).map((id) => labelName.get(textOf(id))).filter((name) => name !== undefined),
      comments: commentsOf.get(cardId) ?? [],
      relations: [],
      fields: {},
      ...(dueDate ? { dueDate } : {}),
      ...(startDate && (!dueDate || startDate <= dueDate) ? { startDate } : {}),
      ...(people[0] ? { assignee: people[0] } : {}),
    };
    if (people.length > 1) plan.warnings.push(`${task.title}: has ${people.length} members; a task has one assignee, so it is ${people[0]!.name}`);
    plan.tasks.push(task);
    for (const checklist of checklistsOf.get(cardId) ?? []) {
      for (const item of arrayOf(checklist.checkItems).filter(isRecord).sort(byPos)) {
        plan.tasks.push({
          ref: `${cardId}/${textOf(item.id)}`,
          title: clipTitle(textOf(item.name)),
          description: '',
          state: item.state === 'complete' ? doneState : firstOpen,
          labels: [],
          parentRef: cardId,
          comments: [],
          relations: [],
          fields: {},
          ...(dateOf(item.due) ? { dueDate: dateOf(item.due)! } : {}),
        });
      }
    }
  }
  return plan;
}

/**
 * The name of the plan's first state of `category`, one made (`name`) if it has none: with the key
 * of the default state of that category (TODO, DONE, CANCELLED), as a new project's.
 */
export function ensureCategory(plan: ImportPlan, category: StateCategory, name: string): string {
  const found = plan.states.find((state) => state.category === category);
  if (found) return found.name;
  let unique = name;
  for (let n = 2; plan.states.some((state) => state.name.toLowerCase() === unique.toLowerCase()); n += 1) unique = `${name} (${n})`;
  const key = DEFAULT_STATES.find((state) => state.category === category)?.key;
  plan.states.push({ name: unique, category, ...(key ? { key } : {}) });
  return unique;
}
