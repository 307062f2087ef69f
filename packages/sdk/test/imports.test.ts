import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasklaneClient, TasklaneError } from '../src/index';
import { startServer } from './server';

let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

describe('tl.imports', () => {
  it('moves a project: its export dry-run, imported, followed to the end, and equal in its tasks', async () => {
    const tl = createTasklaneClient({ baseUrl: server.baseUrl });
    await tl.auth.register({ name: 'Ada', email: `import-${Date.now().toString(36)}@example.com`, password: 'secret-password' });
    const project = await tl.projects.create({ name: 'Moving' });
    const parent = await tl.tasks.create({ projectId: project.id, title: 'Parent', priority: 'HIGH' });
    await tl.tasks.create({ projectId: project.id, title: 'Child', parentId: parent.id });
    await tl.comments.create({ id: parent.id, text: 'Kept' });
    const file = new Blob([await (await tl.projects.export({ id: project.id })).arrayBuffer()], { type: 'application/json' });

    const dry = await tl.imports.dryRun({ source: 'tasklane', file });
    expect(dry).toMatchObject({ dryRun: true, project: { name: 'Moving' }, counts: { tasks: 2, subtasks: 1, comments: 1 } });

    // Its progress comes live on the notification stream.
    const progress: { status: string; done: number; total: number }[] = [];
    const notifications: unknown[] = [];
    const stream = await tl.notifications.subscribe({}, { onNotification: (notification) => notifications.push(notification), onImportProgress: (step) => progress.push(step) });
    const queued = await tl.imports.create({ source: 'tasklane', file });
    expect(queued).toMatchObject({ status: 'pending', source: 'tasklane' });
    let state = await tl.imports.get({ id: queued.id });
    while (state.status === 'pending' || state.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await tl.imports.get({ id: queued.id });
    }
    expect(state).toMatchObject({ status: 'succeeded', progress: { done: 2, total: 2 }, counts: dry.counts });
    await expect.poll(() => progress.at(-1)).toEqual({ id: queued.id, status: 'succeeded', done: 2, total: 2, projectId: state.projectId });
    expect(progress[0]).toEqual({ id: queued.id, status: 'running', done: 0, total: 2, projectId: null });
    stream.close();
    expect(notifications).toEqual([]);
    const tasks = (await tl.tasks.list({ projectId: state.projectId!, sort: 'position' })).items;
    expect(tasks.map((task) => [task.title, task.priority, task.parentId === null])).toEqual([
      ['Parent', 'HIGH', true],
      ['Child', 'MEDIUM', false],
    ]);

    const csv = await tl.imports.dryRun({ source: 'csv', file: 'Name,Due\nWrite,2027-01-01', mapping: { title: 'Name', dueDate: 'Due' } });
    expect(csv.counts.tasks).toBe(1);
    const refused = await tl.imports.create({ source: 'trello', file: '{"not":"trello"}' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TasklaneError);
    expect(refused).toMatchObject({ httpStatus: 400, code: 'BAD_REQUEST', reason: 'IMPORT_FORMAT' });
  });
});
