import type { Db } from '@tasklane/db';
import type { MoveTaskInput } from '@tasklane/schemas';
import { generateKeyBetween } from 'fractional-indexing';
import { invalidField } from '../../platform/errors';
import { isId } from '../../platform/ids';
import * as store from './store';

/*
 * Where a task stands in the board's order: its `position`, a key of the `fractional-indexing`
 * package. The keys of a project are unique and form one order; a board column (a status) shows
 * its tasks in that order, so a task that changes status keeps its key and lands among its new
 * column by it. Placing a task gives it a key between two others and changes no other task's.
 *
 * Every write that chooses a key holds the project's advisory lock (store.lockPositions) from its
 * read of the neighbours to its commit, so two of them never choose from the same neighbours: the
 * second sees the first's key and places itself next to it. The unique index
 * (tasks_project_position_key) stands behind that.
 */

/** The key of a new task of the project: after every task of it, the end of every column. Takes the project's position lock. */
export async function positionOfNewTask(tx: Db, projectId: string): Promise<string> {
  // Sent together, in this order: the lock, then the read (a statement of its own, after the lock).
  const [, last] = await Promise.all([store.lockPositions(tx, projectId), store.adjacentPosition(tx, projectId, 'before', null, null)]);
  return generateKeyBetween(last, null);
}

type Neighbours = Pick<MoveTaskInput, 'afterId' | 'beforeId'>;

/** The neighbours' ids, lower case as stored; a malformed one, or the task itself, is a 400 naming its field. */
function neighbourIds(taskId: string, neighbours: Neighbours): Neighbours {
  const ids: Neighbours = {};
  for (const field of ['afterId', 'beforeId'] as const) {
    const id = neighbours[field];
    if (id === undefined) continue;
    if (!isId(id)) throw invalidField([field], `${field} must be the id of a task`, 'INVALID_NEIGHBOUR');
    if (id.toLowerCase() === taskId) throw invalidField([field], 'A task cannot be placed next to itself', 'INVALID_NEIGHBOUR');
    ids[field] = id.toLowerCase();
  }
  return ids;
}

/**
 * The key of task `taskId` (of `projectId`) placed in column `status` right after `afterId` and
 * right before `beforeId` (either may be absent; neither: the end of the column). Each neighbour
 * must be a task of the project in `status` (else a 400 naming it), and `beforeId` after
 * `afterId`. Takes the project's position lock: call it after the write's row locks.
 *
 * The key is chosen between `afterId` and the project's key that now follows it (or between the
 * key that now precedes `beforeId` and it), read under the lock: a move that came first into the
 * same gap has its key there, and this one lands next to it, never on it.
 */
export async function positionBetween(tx: Db, projectId: string, taskId: string, status: string, neighbours: Neighbours): Promise<string> {
  const { afterId, beforeId } = neighbourIds(taskId, neighbours);
  const wanted = [afterId, beforeId].filter((id): id is string => id !== undefined);
  const [, places] = await Promise.all([store.lockPositions(tx, projectId), wanted.length > 0 ? store.findPlaces(tx, wanted) : []]);
  const positionOf = (field: keyof Neighbours, id: string | undefined): string | undefined => {
    if (id === undefined) return undefined;
    const place = places.find((found) => found.id === id);
    if (!place || place.projectId !== projectId || place.status !== status) {
      throw invalidField([field], `${field} must be a task of the same project with status ${status}`, 'INVALID_NEIGHBOUR');
    }
    return place.position;
  };
  const above = positionOf('afterId', afterId);
  const below = positionOf('beforeId', beforeId);
  if (above !== undefined && below !== undefined && below <= above) {
    throw invalidField(['beforeId'], 'beforeId must come after afterId in the column', 'INVALID_NEIGHBOUR');
  }
  if (above !== undefined) return generateKeyBetween(above, await store.adjacentPosition(tx, projectId, 'after', above, taskId));
  if (below !== undefined) return generateKeyBetween(await store.adjacentPosition(tx, projectId, 'before', below, taskId), below);
  return generateKeyBetween(await store.adjacentPosition(tx, projectId, 'before', null, taskId), null);
}
