import type { Db } from '@tasklane/db';
import {
  type CreateStateInput,
  DEFAULT_STATE_COLORS,
  DEFAULT_STATES,
  type DeleteStateInput,
  type ListStatesInput,
  REQUIRED_STATE_CATEGORIES,
  type State,
  type StateCategory,
  type StatePathInput,
  STATES_MAX,
  stateKeyFromName,
  type UpdateStateInput,
} from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import { isUniqueViolation } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import { moveTasksToState } from '../tasks/service';
import { DomainError, invalidField, notFound } from '../../platform/errors';
import * as store from './store';

export const toState = (row: store.StateRow): State => ({
  id: row.id,
  projectId: row.projectId,
  key: row.key,
  name: row.name,
  category: row.category,
  color: row.color,
  position: row.position,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const stateExists = (key: string) => new DomainError('CONFLICT', `The project already has a state with the key "${key}"`, 'STATE_EXISTS');

/** The 409 when a change would leave the project without a state of a category it must keep. */
const stateRequired = (category: StateCategory) =>
  new DomainError('CONFLICT', `A project keeps at least one ${category} state: this is its last`, 'STATE_REQUIRED');

/** Refuses (409 STATE_REQUIRED) taking `state` out of its category when it is the project's last of a required one. */
function requireOthersOfCategory(states: store.StateRow[], state: store.StateRow): void {
  const category = state.category as (typeof REQUIRED_STATE_CATEGORIES)[number];
  if (REQUIRED_STATE_CATEGORIES.includes(category) && !states.some((other) => other.id !== state.id && other.category === category)) throw stateRequired(category);
}

/**
 * For the projects service, in a new project's transaction: its five default states (the same
 * migration 0010 gave every project that existed before).
 */
export async function addDefaultStates(tx: Db, projectId: string): Promise<void> {
  const now = new Date();
  await store.insertStates(
    tx,
    DEFAULT_STATES.map((state, position) => ({ id: newId(), projectId, ...state, position, createdAt: now, updatedAt: now })),
  );
}

/**
 * The project's first unstarted state once `deleted` is gone: where the next occurrences of the
 * recurring tasks its deletion moves into a completed state go. There is one (requireOthersOfCategory).
 */
const firstUnstarted = (states: store.StateRow[], deleted: store.StateRow): store.StateRow =>
  states.filter((other) => other.category === 'unstarted' && other.id !== deleted.id).sort((a, b) => a.position - b.position)[0]!;

export function createStatesService(db: Db) {
  /**
   * A change of the project's states, in one transaction: the project's row (transactionIn), the
   * caller's access ('states.manage'), every state of the project locked (store.lockStates) and
   * handed to `change` with the one the path names (404 when it names none).
   */
  async function changing<T>(userId: string, { id: projectId, stateId }: StatePathInput, change: (tx: Db, states: store.StateRow[], state: store.StateRow) => Promise<T>): Promise<T> {
    authorize(await requireProjectAccess(db, projectId, userId), 'states.manage');
    const project = projectId.toLowerCase();
    return transactionIn(db, { projectId: project }, 'Project', async (tx) => {
      const states = await store.lockStates(tx, project);
      const state = isId(stateId) ? states.find((candidate) => candidate.id === stateId.toLowerCase()) : undefined;
      if (!state) throw notFound('State');
      return change(tx, states, state);
    });
  }

  return {
    /** Every member; the project's states in board order. */
    async list(userId: string, { id: projectId }: ListStatesInput): Promise<State[]> {
      await requireProjectAccess(db, projectId, userId);
      return (await store.listStates(db, projectId.toLowerCase())).map(toState);
    },

    /** Every member; one state (404 for an id of no state of the project). */
    async get(userId: string, { id: projectId, stateId }: StatePathInput): Promise<State> {
      await requireProjectAccess(db, projectId, userId);
      const row = isId(stateId) ? await store.findState(db, projectId.toLowerCase(), stateId.toLowerCase()) : undefined;
      if (!row) throw notFound('State');
      return toState(row);
    },

    /** Appended to the board (the last position); its key given or derived from its name, unique in the project. */
    async create(userId: string, { id, name, category, color, key }: CreateStateInput): Promise<State> {
      authorize(await requireProjectAccess(db, id, userId), 'states.manage');
      const stateKey = key ?? stateKeyFromName(name);
      if (!stateKey) throw invalidField(['key'], 'The name has no letter or digit (A–Z, 0–9) to make a key of: give a key');
      const projectId = id.toLowerCase();
      try {
        return await transactionIn(db, { projectId }, 'Project', async (tx) => {
          const states = await store.lockStates(tx, projectId);
          if (states.some((state) => state.key === stateKey)) throw stateExists(stateKey);
          if (states.length >= STATES_MAX) throw new DomainError('CONFLICT', `A project has at most ${STATES_MAX} states`, 'STATE_LIMIT');
          const now = new Date();
          const row: store.StateRow = {
            id: newId(),
            projectId,
            key: stateKey,
            name,
            category,
            color: color ?? DEFAULT_STATE_COLORS[category],
            position: states.length,
            createdAt: now,
            updatedAt: now,
          };
          await store.insertStates(tx, [row]);
          const state = toState(row);
          await recordEvent(tx, { projectId, actorId: userId, type: 'state.created', resource: state });
          return state;
        });
      } catch (error) {
        // A first state of a project created twice at once: the unique index decides.
        if (isUniqueViolation(error)) throw stateExists(stateKey);
        throw error;
      }
    },

    /**
     * Name, colour, category and position; the key never changes. A new position moves the states
     * between the old and the new one by one place (each a new version), recorded as this state's
     * `position` change only.
     */
    async update(userId: string, { name, color, category, position, ...path }: UpdateStateInput, versions?: Date[]): Promise<State> {
      return changing(userId, path, async (tx, states, state) => {
        const before = requireVersion(state, versions, 'State');
        if (category !== undefined && category !== before.category) requireOthersOfCategory(states, before);
        const to = position === undefined ? before.position : Math.min(position, states.length - 1);
        if (to < before.position) await store.shiftStates(tx, before.projectId, to, before.position - 1, 1);
        if (to > before.position) await store.shiftStates(tx, before.projectId, before.position + 1, to, -1);
        const patch = {
          ...(name !== undefined ? { name } : {}),
          ...(color !== undefined ? { color } : {}),
          ...(category !== undefined ? { category } : {}),
          position: to,
        };
        const changes = changedFields(toState(before), toState({ ...before, ...patch }), ['name', 'color', 'category', 'position']);
        if (!changes) return toState(before);
        const row = await store.updateState(tx, before.id, { ...patch, updatedAt: nextVersion(before.updatedAt) });
        if (!row) throw notFound('State');
        const after = toState(row);
        await recordEvent(tx, { projectId: before.projectId, actorId: userId, type: 'state.updated', resource: after, changes });
        return after;
      });
    },

    /**
     * Deletes the state, first moving its tasks to `moveTo` (each a recorded task update), in one
     * transaction. Refused when the project would lose its last unstarted or completed state (409
     * STATE_REQUIRED), and when the state holds tasks and no `moveTo` is given (409 STATE_IN_USE).
     */
    async remove(userId: string, { moveTo, ...path }: DeleteStateInput, versions?: Date[]): Promise<{ message: string }> {
      return changing(userId, path, async (tx, states, state) => {
        requireVersion(state, versions, 'State');
        requireOthersOfCategory(states, state);
        const target = moveTo === undefined ? undefined : states.find((candidate) => candidate.key === moveTo && candidate.id !== state.id);
        if (moveTo !== undefined && !target) throw invalidField(['moveTo'], `moveTo must be the key of another state of the project`, 'UNKNOWN_STATE');
        // Every task write that named the state has committed once this lock is held, and none can come after.
        await store.lockStateForDeletion(tx, state.id);
        if (target) await moveTasksToState(tx, state.projectId, state.key, { key: target.key, category: target.category }, userId, firstUnstarted(states, state));
        else if (await store.stateHasTasks(tx, state.projectId, state.key)) {
          throw new DomainError('CONFLICT', `The state "${state.key}" still holds tasks: give moveTo, the key of the state to move them to`, 'STATE_IN_USE');
        }
        await store.deleteState(tx, state.id);
        await store.shiftStates(tx, state.projectId, state.position + 1, states.length, -1);
        await recordEvent(tx, { projectId: state.projectId, actorId: userId, type: 'state.deleted', resource: toState(state) });
        return { message: 'State deleted' };
      });
    },
  };
}

export type StatesService = ReturnType<typeof createStatesService>;
