import type { Readable } from 'node:stream';
import type { Db } from '@tasklane/db';
import { type CsvMapping, CsvMappingSchema, IMPORT_TASKS_MAX, type Import, type ImportCounts, type ImportDryRun, type ImportProgressEvent, type ImportSource, PROJECT_DESCRIPTION_MAX, PROJECT_NAME_MAX } from '@tasklane/schemas';
import { inTransaction } from '../../platform/ambient-transaction';
import { type BlobStore, importKey } from '../../platform/storage';
import { DomainError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import type { MembersService } from '../members/service';
import type { ProjectsService } from '../projects/service';
import { boundedWarnings, clip, collectLabels, formatError, type ImportPlan, normalizePlan } from './plan';
import { planOf } from './sources';
import * as store from './store';
import { emailsOf, settlePlan, writePlan } from './write';

export interface ImportsOptions {
  /** Where a file waits for its import (`imports/<id>`): the attachments' store. */
  files: BlobStore;
  /** How long an instance keeps an import it runs before another may take it over (it stopped). */
  leaseMs: number;
  /** Attempts before an import that keeps failing for no fault of its file is given up. */
  maxAttempts: number;
  /** Told of a failure that is not the file's (it is retried). */
  onError: (error: unknown) => void;
  /** Told of each import's progress and end (live events: imports/progress.ts). */
  onProgress?: (userId: string, progress: ImportProgressEvent) => void;
}

const toImport = (row: store.ImportRow, live: { done: number } | undefined): Import => ({
  id: row.id,
  status: row.status,
  source: row.source as ImportSource,
  progress: { done: live?.done ?? row.progressDone, total: row.progressTotal },
  counts: (row.counts as ImportCounts | null) ?? null,
  warnings: row.warnings,
  projectId: row.projectId,
  error: row.error,
  createdAt: row.createdAt.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
});

/** A stored file, to be read as a stream; a missing one (swept, or lost with a local disk) fails the import. */
async function openFile(files: BlobStore, key: string): Promise<NodeJS.ReadableStream> {
  const stream = await files.read(key);
  if (!stream) throw new DomainError('NOT_FOUND', 'The file of this import is no longer stored: upload it again');
  return stream;
}

/** A Tasklane file's project key that a project here has or had. */
const keyTakenWarning = (key: string) => `The project key ${key} is taken on this server: the project gets a key of its own, and its tasks' keys change with it`;

/**
 * Imports (issue 38): a file another tool exported becomes one new project of the caller's. The
 * upload streams to a temporary file of the blob store (`receive`), never held in memory whole; it
 * is read from there at once (a bad one is a 400 before anything is kept), then waits
 * (`imports/<id>`) until a background job (`runNext`, any instance, once) reads it again and writes
 * the whole project in one transaction. Each read streams (sources/json.ts, sources/csv-table.ts).
 */
export function createImportsService(db: Db, services: { projects: ProjectsService; members: MembersService }, options: ImportsOptions) {
  const { projects, members } = services;
  /** Progress of the imports this instance is writing (the row has it only at the end). */
  const writing = new Map<string, { done: number }>();

  /** The file read and checked, its people matched: what would be made. */
  async function settle(userId: string, source: ImportSource, file: NodeJS.ReadableStream, mapping: CsvMapping | undefined) {
    let plan: ImportPlan;
    try {
      plan = await planOf(source, file, mapping);
    } finally {
      // A source that refused the file early (a csv without its mapping) leaves it unread: closed here.
      (file as Readable).destroy();
    }
    normalizePlan(plan);
    collectLabels(plan);
    if (plan.tasks.length > IMPORT_TASKS_MAX) throw formatError(`The file has ${plan.tasks.length} tasks; an import makes at most ${IMPORT_TASKS_MAX}`);
    if (plan.project.key && !(await projects.keyIsFree(plan.project.key))) {
      plan.warnings.push(keyTakenWarning(plan.project.key));
      delete plan.project.key;
    }
    const people = await store.usersByEmail(db, emailsOf(plan));
    const counts = settlePlan(plan, people, userId);
    plan.warnings = boundedWarnings(plan.warnings);
    return { plan, people, counts };
  }

  return {
    /**
     * An uploaded file streamed to a temporary key of the blob store, at most `maxBytes` (else
     * BlobTooLargeError, nothing kept): the key `submit` takes, or `discard` lets go.
     */
    async receive(source: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
      return (await options.files.upload(source, maxBytes)).temporaryKey;
    },

    /** A received file no import will take (its request was refused); one the store fails to remove is swept later. */
    discard: (upload: string) => options.files.remove([upload]).catch(options.onError),

    /**
     * The received file `upload` read and checked. `dryRun`: what would be made, nothing kept.
     * Otherwise the import, pending, its file moved to `imports/<id>`. Either way the temporary
     * file is gone when this returns (a refused file too).
     */
    async submit(userId: string, input: { source: ImportSource; mapping?: CsvMapping | undefined; upload: string; dryRun: boolean }): Promise<ImportDryRun | Pick<Import, 'id' | 'status' | 'source'>> {
      let kept = false;
      try {
        const result = await submitReceived(userId, input);
        kept = !('dryRun' in result);
        return result;
      } finally {
        // A file whose row committed was moved; any other is removed now, or by the sweep if the
        // store fails to (that failure is not the request's answer).
        if (!kept) await options.files.remove([input.upload]).catch(options.onError);
      }
    },

    /** The caller's own import (anyone else's is a 404, as an unknown id is). */
    async get(userId: string, id: string): Promise<Import> {
      const row = isId(id) ? await store.findImport(db, id, userId) : undefined;
      if (!row) throw notFound('Import');
      return toImport(row, row.status === 'running' ? writing.get(row.id) : undefined);
    },

    runNext,
  };

  async function submitReceived(userId: string, input: { source: ImportSource; mapping?: CsvMapping | undefined; upload: string; dryRun: boolean }): Promise<ImportDryRun | Pick<Import, 'id' | 'status' | 'source'>> {
    const { plan, counts } = await settle(userId, input.source, await openFile(options.files, input.upload), input.mapping);
    if (input.dryRun) {
      return {
        dryRun: true,
        source: input.source,
        project: { name: plan.project.name },
        counts,
        warnings: plan.warnings,
        states: plan.states.map(({ name, category }) => ({ name, category })),
        labels: plan.labels,
      };
    }
    const id = newId();
    // The file to its place in the transaction that inserts its row: a failed insert leaves the
    // temporary file (removed by submit), and a file whose row never commits is swept (events/attachment-files.ts).
    await inTransaction(db, async () => {
      await store.insertImport(db, { id, userId, source: input.source, mapping: input.mapping ?? null, total: counts.tasks });
      await options.files.promote(input.upload, importKey(id));
    });
    return { id, status: 'pending', source: input.source };
  }

  /** Runs the oldest waiting import, if any: true when there was one. */
  async function runNext(): Promise<boolean> {
    const job = await store.claimImport(db, options.leaseMs, options.maxAttempts);
    if (!job) return false;
    // The lease renewed while this instance works on it; another takes over only once it has stopped.
    const heartbeat = setInterval(() => void store.renewLease(db, job.id, options.leaseMs).catch(options.onError), Math.max(500, options.leaseMs / 3));
    heartbeat.unref();
    const report = (status: Import['status'], done: number, total: number, projectId: string | null = null) =>
      options.onProgress?.(job.userId, { id: job.id, status, done, total, projectId });
    // Whatever ends it (here, or an instance that took it over) leaves its file unneeded; a release does not.
    let ended = true;
    try {
      const mapping = job.mapping ? CsvMappingSchema.parse(job.mapping) : undefined;
      const file = await openFile(options.files, importKey(job.id));
      const { plan, people, counts } = await settle(job.userId, job.source as ImportSource, file, mapping);
      await store.setPlanned(db, job.id, { total: counts.tasks, counts, warnings: plan.warnings });
      const progress = { done: 0 };
      writing.set(job.id, progress);
      report('running', 0, counts.tasks);
      const projectId = await inTransaction(db, async (tx) => {
        // Still ours (not finished by an instance that took it over): the row stays locked to the commit.
        if (!(await store.lockRunning(tx, job.id))) {
          // Another instance took it over (this one stalled past its lease): its file is that run's.
          ended = false;
          return undefined;
        }
        const project = await projects.create(
          job.userId,
          { name: clip(plan.project.name.trim(), PROJECT_NAME_MAX) || 'Imported project', description: clip(plan.project.description, PROJECT_DESCRIPTION_MAX) },
          plan.project.key ? { preferredKey: plan.project.key } : {},
        );
        // Taken meanwhile (the check above ran before the keys' lock): said as the check would have.
        if (plan.project.key && project.key !== plan.project.key) await store.addWarning(tx, job.id, keyTakenWarning(plan.project.key));
        // The people of the file registered here join as EDITORs, as an ADMIN's invitation adds them (they hear of it).
        for (const [email, memberId] of people) if (memberId !== job.userId) await members.invite(job.userId, { id: project.id, email, role: 'EDITOR' });
        await writePlan(tx, {
          projectId: project.id,
          userId: job.userId,
          plan,
          people,
          onProgress: (done) => {
            progress.done = done;
            report('running', done, counts.tasks);
          },
        });
        await store.finishImport(tx, job.id, { status: 'succeeded', projectId: project.id, done: counts.tasks });
        return project.id;
      });
      if (projectId) report('succeeded', counts.tasks, counts.tasks, projectId);
    } catch (error) {
      if (error instanceof DomainError) {
        await store.finishImport(db, job.id, { status: 'failed', error: error.message });
        report('failed', 0, 0);
      } else if (job.attempts >= options.maxAttempts) {
        options.onError(error);
        await store.finishImport(db, job.id, { status: 'failed', error: `The import failed ${job.attempts} times on the server's side; nothing of it was kept` });
        report('failed', 0, 0);
      } else {
        options.onError(error);
        await store.release(db, job.id);
        ended = false;
      }
    } finally {
      clearInterval(heartbeat);
      writing.delete(job.id);
    }
    if (ended) await options.files.remove([importKey(job.id)]);
    return true;
  }
}

export type ImportsService = ReturnType<typeof createImportsService>;
