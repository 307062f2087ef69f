import { readFile } from 'node:fs/promises';
import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * The exports as a person takes them: an admin's Export buttons on the project's members page
 * (JSON, CSV), which an EDITOR does not see, and "Download my data" on the account page; each
 * download's content checked.
 */
describe('exports in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  let grace: Person;
  const run = Date.now().toString(36);
  const tokens: Record<string, string> = {};
  const api: Record<string, TasklaneClient> = {};
  let projectId = '';
  let key = '';
  let taskKey = '';

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
    ] as const) {
      const client = createTasklaneClient({ baseUrl: server.baseUrl });
      tokens[who] = (await client.auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' })).access_token;
      api[who] = client;
    }
    const project = await api.ada!.projects.create({ name: 'Analytical engine' });
    projectId = project.id;
    key = project.key;
    await api.ada!.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    const task = await api.ada!.tasks.create({ projectId, title: '=Punch the cards', description: 'Bernoulli, numbers' });
    taskKey = task.key;
    await api.grace!.comments.create({ id: task.id, text: 'Note G' });
    await api.ada!.comments.create({ id: task.id, text: 'Ada was here' });
    ada = await newPerson(browser, server.baseUrl);
    grace = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("an admin downloads the project as JSON and as CSV from the project's members page", async () => {
    const { page } = ada;
    await signInWithToken(ada, tokens.ada!, `/projects/${projectId}/members`);
    const section = page.getByRole('region', { name: 'Export' });
    await section.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const [json] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Export JSON' }).click()]);
    expect(json.suggestedFilename()).toBe(`${key}.json`);
    const file = JSON.parse(await readFile((await json.path())!, 'utf8'));
    expect(file).toMatchObject({ format: 'tasklane', version: 1, project: { id: projectId, name: 'Analytical engine' } });
    expect(file.tasks).toEqual([expect.objectContaining({ key: taskKey, title: '=Punch the cards', comments: [expect.objectContaining({ text: 'Note G' }), expect.objectContaining({ text: 'Ada was here' })] })]);
    expect(file.members.map((member: { email: string }) => member.email).sort()).toEqual([`ada-${run}@example.com`, `grace-${run}@example.com`]);

    const [csv] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(csv.suggestedFilename()).toBe(`${key}.csv`);
    const text = await readFile((await csv.path())!, 'utf8');
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('key,title,description,status,priority,start,due,assignee,labels,created,updated');
    expect(lines[1]).toMatch(new RegExp(`^${taskKey},'=Punch the cards,"Bernoulli, numbers",To do,MEDIUM,,,,,`));
    expect(lines.slice(2)).toEqual(['']);
    expect(ada.pageErrors).toEqual([]);
  });

  it('an EDITOR sees no Export buttons', async () => {
    const { page } = grace;
    await signInWithToken(grace, tokens.grace!, `/projects/${projectId}/members`);
    await page.getByText('Only admins can invite members').waitFor();
    expect(await page.getByRole('button', { name: 'Export JSON' }).count()).toBe(0);
  });

  it('"Download my data" on the account page saves your own data, your comments only', async () => {
    const { page } = grace;
    await page.goto('/account');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^tasklane-account-\d{4}-\d{2}-\d{2}\.json$/);
    const file = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(file).toMatchObject({ format: 'tasklane', version: 1, kind: 'account', account: { name: 'Grace Hopper', email: `grace-${run}@example.com` } });
    expect(file.memberships).toEqual([expect.objectContaining({ projectId, projectName: 'Analytical engine', role: 'EDITOR', owner: false })]);
    expect(file.comments.map((comment: { text: string }) => comment.text)).toEqual(['Note G']);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(grace.pageErrors).toEqual([]);
  });
});
