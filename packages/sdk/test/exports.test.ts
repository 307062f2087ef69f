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

describe('tl.projects.export and tl.auth.exportMe', () => {
  it('downloads a project as JSON and CSV, and your own data; a personal access token may not export your data', async () => {
    const tl = createTasklaneClient({ baseUrl: server.baseUrl });
    const session = await tl.auth.register({ name: 'Ada', email: `export-${Date.now().toString(36)}@example.com`, password: 'secret-password' });
    const project = await tl.projects.create({ name: 'Exported' });
    const task = await tl.tasks.create({ projectId: project.id, title: 'Be exported' });
    await tl.comments.create({ id: task.id, text: 'Mine' });

    const json = await tl.projects.export({ id: project.id });
    expect(json.headers.get('content-disposition')).toBe(`attachment; filename="${project.key}.json"`);
    const file = (await json.json()) as { format: string; version: number; tasks: { id: string }[] };
    expect(file).toMatchObject({ format: 'tasklane', version: 1, tasks: [expect.objectContaining({ id: task.id })] });

    const csv = await (await tl.projects.export({ id: project.id, format: 'csv' })).text();
    expect(csv.split('\r\n')[0]).toBe('key,title,description,status,priority,start,due,assignee,labels,created,updated');
    expect(csv).toContain(`${task.key},Be exported,`);

    const mine = (await (await tl.auth.exportMe()).json()) as { account: { id: string }; comments: { text: string }[] };
    expect(mine.account.id).toBe(session.user.id);
    expect(mine.comments.map((comment) => comment.text)).toEqual(['Mine']);

    const unknown = await tl.projects.export({ id: project.id, format: 'xml' as 'csv' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(TasklaneError);
    expect(unknown).toMatchObject({ code: 'BAD_REQUEST' });

    const { token } = await tl.tokens.create({ name: 'Script', scopes: ['admin'] });
    const withToken = createTasklaneClient({ baseUrl: server.baseUrl, token });
    expect(await (await withToken.projects.export({ id: project.id, format: 'csv' })).text()).toBe(csv);
    const refused = await withToken.auth.exportMe().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', reason: 'SESSION_REQUIRED' });
  });
});
