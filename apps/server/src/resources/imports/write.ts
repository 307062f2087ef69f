import { DEFAULT_STATE_COLORS, type FieldValue, type ImportCounts, RECURRENCE_MAX, STATE_KEY_MAX, STATE_KEY_PATTERN, TIME_ENTRY_NOTE_MAX } from '@tasklane/schemas';
import type { Db } from '@tasklane/db';
import { generateNKeysBetween } from 'fractional-indexing';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { storedValue } from '../tasks/field-values';
import { checkRecurrence, storedNextDueDate } from '../tasks/recurrence';
import { clip, clipComment, type ImportPlan, type PlannedPerson, type PlannedTask } from './plan';
import * as store from './store';

/** The people of a plan matched to registered users: email (lower case) → user id. */
export type People = Map<string, string>;

/** The emails a plan names (lower case), each once. */
export function emailsOf(plan: ImportPlan): string[] {
  const emails = new Set<string>();
  // normalizePlan made them storable and lower case.
  const add = (person: PlannedPerson | undefined) => person?.email && emails.add(person.email);
  const userFields = plan.fields.filter((field) => field.type === 'user').map((field) => field.name);
  for (const task of plan.tasks) {
    add(task.assignee);
    for (const comment of task.comments) add(comment.author);
    for (const entry of task.timeEntries ?? []) add(entry.author);
    for (const name of userFields) if (typeof task.fields[name] === 'string') emails.add(task.fields[name]);
  }
  return [...emails];
}

/**
 * A task's recurrence and field values as this server keeps them, or left out with a warning: a
 * rule it does not read, or one without a due date to step from; a value its field's type refuses
 * (the check a task write makes), a user field naming someone not registered here.
 */
function settleValues(plan: ImportPlan, people: People): void {
  const fieldOf = new Map(plan.fields.map((field) => [field.name, { ...field, id: field.name }]));
  for (const task of plan.tasks) {
    if (task.recurrence !== undefined) {
      try {
        if (task.recurrence.length > RECURRENCE_MAX) throw new DomainError('BAD_REQUEST', `a rule holds at most ${RECURRENCE_MAX} characters`);
        task.recurrence = checkRecurrence(task.recurrence);
        if (!task.dueDate) throw new DomainError('BAD_REQUEST', 'a recurring task needs a due date');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        plan.warnings.push(`${task.title}: its repeat rule "${clip(task.recurrence, 100)}" was left out: ${error.message}`);
        delete task.recurrence;
      }
    }
    for (const [name, raw] of Object.entries(task.fields)) {
      const field = fieldOf.get(name)!;
      // A user field's person by email becomes their id here, the value writePlan stores.
      const value = field.type === 'user' ? people.get(String(raw)) : raw;
      const refusal = value === undefined ? `${String(raw)} is not registered here` : storedValue(field, value as FieldValue);
      if (typeof refusal !== 'string') task.fields[name] = value!;
      else {
        plan.warnings.push(`${task.title}: its ${name} was left empty: ${refusal}`);
        delete task.fields[name];
      }
    }
  }
}

/**
 * What a plan makes, and its warnings: unknown parents and relation targets, cycles, people who
 * are not registered here. Resolves refs in place (dropping what cannot be kept), so the counts
 * are exactly what `writePlan` writes.
 */
export function settlePlan(plan: ImportPlan, people: People, importerId: string): ImportCounts {
  const refs = new Set(plan.tasks.map((task) => task.ref));
  const byRef = new Map(plan.tasks.map((task) => [task.ref, task]));
  const parentOf = new Map<string, string>();
  for (const task of plan.tasks) {
    if (task.parentRef === undefined) continue;
    if (!refs.has(task.parentRef)) {
      plan.warnings.push(`${task.title}: its parent (${task.parentRef}) is not in the file, so it is a task of its own`);
      delete task.parentRef;
    } else parentOf.set(task.ref, task.parentRef);
  }
  // A parent chain that comes back to itself: the link that closes the loop goes. Each task is
  // walked once (a chain already known to end is not walked again), so this is linear in the file.
  const ends = new Set<string>();
  for (const task of plan.tasks) {
    const path: string[] = [];
    const onPath = new Set<string>();
    for (let at: string | undefined = task.ref; at !== undefined && !ends.has(at); at = parentOf.get(at)) {
      if (onPath.has(at)) {
        const closing = path[path.length - 1]!;
        parentOf.delete(closing);
        const child = byRef.get(closing)!;
        delete child.parentRef;
        plan.warnings.push(`${child.title}: its parent would make a loop, so it is a task of its own`);
        break;
      }
      path.push(at);
      onPath.add(at);
    }
    for (const ref of path) ends.add(ref);
  }

  const pairs = new Set<string>();
  for (const task of plan.tasks) {
    task.relations = task.relations.filter((relation) => {
      const pair = relation.type === 'relates_to' ? [relation.type, ...[task.ref, relation.targetRef].sort()].join(' ') : `${relation.type} ${task.ref} ${relation.targetRef}`;
      if (!refs.has(relation.targetRef) || relation.targetRef === task.ref) {
        plan.warnings.push(`${task.title}: its ${relation.type} link to ${relation.targetRef} points outside the file, so it was left out`);
        return false;
      }
      if (pairs.has(pair)) return false;
      pairs.add(pair);
      return true;
    });
  }
  dropBlockingLoops(plan, byRef);
  settleValues(plan, people);
  const relations = plan.tasks.reduce((sum, task) => sum + task.relations.length, 0);
  const missing = new Set<string>();
  for (const task of plan.tasks) {
    if (task.assignee && !(task.assignee.email && people.has(task.assignee.email.toLowerCase()))) missing.add(task.assignee.name);
  }
  if (missing.size > 0) {
    plan.warnings.push(`Not registered here (by email), so their tasks are left unassigned: ${[...missing].sort().join(', ')}`);
  }
  return {
    states: plan.states.length,
    labels: plan.labels.length,
    fields: plan.fields.length,
    tasks: plan.tasks.length,
    subtasks: plan.tasks.filter((task) => task.parentRef !== undefined).length,
    comments: plan.tasks.reduce((sum, task) => sum + task.comments.length, 0),
    relations,
    timeEntries: plan.tasks.reduce((sum, task) => sum + (task.timeEntries?.length ?? 0), 0),
    members: [...new Set(people.values())].filter((id) => id !== importerId).length,
  };
}

/**
 * `blocks` links that would make a loop (A blocks B, B blocks A), which the API refuses: left out,
 * in file order, each with a warning. Kahn's algorithm first finds the tasks on no loop (almost
 * always all of them, and then nothing else is done); only links among the others are checked one by
 * one against the links kept so far.
 */
function dropBlockingLoops(plan: ImportPlan, byRef: Map<string, ImportPlan['tasks'][number]>): void {
  const outgoing = new Map<string, string[]>();
  const incoming = new Map<string, number>();
  for (const task of plan.tasks) {
    for (const relation of task.relations) {
      if (relation.type !== 'blocks') continue;
      outgoing.set(task.ref, [...(outgoing.get(task.ref) ?? []), relation.targetRef]);
      incoming.set(relation.targetRef, (incoming.get(relation.targetRef) ?? 0) + 1);
    }
  }
  const free = plan.tasks.map((task) => task.ref).filter((ref) => !incoming.get(ref));
  while (free.length > 0) {
    const ref = free.pop()!;
    for (const target of outgoing.get(ref) ?? []) {
      const left = incoming.get(target)! - 1;
      incoming.set(target, left);
      if (left === 0) free.push(target);
    }
  }
  const onLoops = new Set([...incoming].filter(([, count]) => count > 0).map(([ref]) => ref));
  if (onLoops.size === 0) return;
  const kept = new Map<string, string[]>();
  const reaches = (from: string, to: string): boolean => {
    const stack = [from];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === to) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...(kept.get(at) ?? []));
    }
    return false;
  };
  for (const task of plan.tasks) {
    if (!onLoops.has(task.ref)) continue;
    task.relations = task.relations.filter((relation) => {
      if (relation.type !== 'blocks' || !onLoops.has(relation.targetRef)) return true;
      if (reaches(relation.targetRef, task.ref)) {
        plan.warnings.push(`${byRef.get(task.ref)!.title}: blocking ${relation.targetRef} would make a loop of blocks, so that link was left out`);
        return false;
      }
      kept.set(task.ref, [...(kept.get(task.ref) ?? []), relation.targetRef]);
      return true;
    });
  }
}

/**
 * The rows `rowsOf` makes of each task, a task at a time as they are taken: store.ts writes them a
 * chunk at a time, so an import's rows of one kind never all exist at once beside its plan.
 */
function* perTask<Row>(tasks: readonly PlannedTask[], rowsOf: (task: PlannedTask, index: number) => readonly Row[]): Generator<Row> {
  for (const [index, task] of tasks.entries()) yield* rowsOf(task, index);
}

/** A state key from a name ("In progress" → IN_PROGRESS), unique among `taken`. */
function stateKey(name: string, given: string | undefined, taken: Set<string>): string {
  let base = given && STATE_KEY_PATTERN.test(given) && given.length <= STATE_KEY_MAX ? given : name.normalize('NFKD').toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, STATE_KEY_MAX - 4).replace(/_+$/, '');
  if (!base) base = 'STATE';
  let key = base;
  for (let n = 2; taken.has(key); n += 1) key = `${base.slice(0, STATE_KEY_MAX - 1 - String(n).length).replace(/_+$/, '')}_${n}`;
  taken.add(key);
  return key;
}

/**
 * Writes a settled plan into the new (empty) project `projectId`, in the caller's transaction:
 * its states replace the defaults, then labels, fields, tasks (numbered as the file numbers them,
 * else 1…n; positions in file order; those in a completed state completed when the file says, else now), parents, field
 * values, comments, time entries and relations. People match registered users by email (the
 * caller has made them members); a comment or time entry by anyone else is the importer's, with
 * "Originally by <name>" in front.
 */
export async function writePlan(tx: Db, input: { projectId: string; userId: string; plan: ImportPlan; people: People; onProgress: (done: number) => void }): Promise<void> {
  const { projectId, userId, plan, people } = input;
  const now = new Date();
  const keys = new Set<string>();
  const stateRows = plan.states.map((state, position) => ({
    id: newId(), projectId, key: stateKey(state.name, state.key, keys), name: state.name, category: state.category,
    color: state.color ?? DEFAULT_STATE_COLORS[state.category], position, createdAt: now, updatedAt: now,
  }));
  await store.replaceStates(tx, projectId, stateRows);
  const keyOfState = new Map(plan.states.map((state, i) => [state.name, stateRows[i]!.key]));
  const completed = new Set(plan.states.filter((state) => state.category === 'completed').map((state) => state.name));
  if (plan.project.estimateUnit) await store.setEstimateUnit(tx, projectId, plan.project.estimateUnit);

  const labelRows = plan.labels.map((label) => ({ id: newId(), projectId, name: label.name, color: label.color, createdAt: now, updatedAt: now }));
  await store.insertLabels(tx, labelRows);
  const labelId = new Map(labelRows.map((row) => [row.name.toLowerCase(), row.id]));

  const fieldRows = plan.fields.map((field, position) => ({ id: newId(), projectId, name: field.name, type: field.type, options: field.options, position, createdAt: now, updatedAt: now }));
  await store.insertFields(tx, fieldRows);
  const fieldOf = new Map(fieldRows.map((row) => [row.name, row]));

  const userOf = (person: PlannedPerson | undefined) => (person?.email ? people.get(person.email.toLowerCase()) : undefined);

  const ids = new Map(plan.tasks.map((task) => [task.ref, newId()]));
  const positions = plan.tasks.length > 0 ? generateNKeysBetween(null, null, plan.tasks.length) : [];
  // Each kind of row is made as its chunk is written (perTask, store.ts): never all of them beside the plan.
  await store.insertTasks(
    tx,
    perTask(plan.tasks, (task, index) => {
      const createdAt = task.createdAt && task.createdAt <= now ? task.createdAt : now;
      const done = completed.has(task.state) ? (task.completedAt && task.completedAt <= now ? task.completedAt : now) : null;
      return [{
        id: ids.get(task.ref)!, projectId, title: task.title, description: task.description, status: keyOfState.get(task.state)!,
        priority: task.priority ?? 'MEDIUM', dueDate: task.dueDate ?? null, startDate: task.startDate ?? null, assigneeId: userOf(task.assignee) ?? null,
        createdById: userId, labelIds: task.labels.map((name) => labelId.get(name.toLowerCase())).filter((id) => id !== undefined).sort(),
        number: task.number ?? index + 1, position: positions[index]!, createdAt, updatedAt: now, completedAt: done, estimate: task.estimate ?? null,
        recurrence: task.recurrence ?? null, nextDueDate: storedNextDueDate(task.recurrence ?? null, task.dueDate ?? null),
      }];
    }),
    input.onProgress,
  );
  await store.setParents(tx, perTask(plan.tasks, (task) => (task.parentRef === undefined ? [] : [{ id: ids.get(task.ref)!, parentId: ids.get(task.parentRef)! }])));
  await store.setNextTaskNumber(tx, projectId, plan.tasks.reduce((last, task, index) => Math.max(last, task.number ?? index + 1), 0) + 1);

  await store.insertFieldValues(
    tx,
    perTask(plan.tasks, (task) =>
      Object.entries(task.fields).flatMap(([name, value]) => {
        const field = fieldOf.get(name)!;
        // Checked (and a user's email made their id) by settlePlan: here only its sort columns are made.
        const stored = storedValue(field, value as FieldValue);
        return typeof stored === 'string' ? [] : [{ taskId: ids.get(task.ref)!, fieldId: field.id, value: stored.value, sortText: stored.sortText, sortNumber: stored.sortNumber }];
      }),
    ),
  );
  await store.insertComments(
    tx,
    perTask(plan.tasks, (task) =>
      task.comments.map((comment) => {
        const authorId = userOf(comment.author);
        const createdAt = comment.createdAt && comment.createdAt <= now ? comment.createdAt : now;
        const text = authorId || !comment.author ? comment.text : clipComment(`Originally by ${comment.author.name}:\n\n${comment.text}`);
        return { id: newId(), taskId: ids.get(task.ref)!, projectId, authorId: authorId ?? userId, text: text || '(empty)', createdAt, updatedAt: createdAt };
      }),
    ),
  );
  await store.insertTimeEntries(
    tx,
    perTask(plan.tasks, (task) =>
      (task.timeEntries ?? []).map((entry) => {
        const authorId = userOf(entry.author);
        const createdAt = entry.createdAt && entry.createdAt <= now ? entry.createdAt : now;
        const note = authorId || !entry.author ? entry.note : clip(`Originally logged by ${entry.author.name}${entry.note ? `: ${entry.note}` : ''}`, TIME_ENTRY_NOTE_MAX);
        return { id: newId(), taskId: ids.get(task.ref)!, userId: authorId ?? userId, minutes: entry.minutes, date: entry.date, note, createdAt, updatedAt: createdAt };
      }),
    ),
  );
  await store.insertRelations(
    tx,
    perTask(plan.tasks, (task) => task.relations.map((relation) => ({ id: newId(), type: relation.type, taskId: ids.get(task.ref)!, relatedTaskId: ids.get(relation.targetRef)!, createdBy: userId, createdAt: now }))),
  );
}
