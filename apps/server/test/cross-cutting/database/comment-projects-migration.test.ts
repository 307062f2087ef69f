import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, type Connection, connect } from '../../support/migrations';

/**
 * An upgrade of a database made before migration 0027: every comment gets its task's project, the
 * column is then required, and a comment goes with its project.
 */
const OWNER = '00000000-0000-7000-8000-000000000001';
const ONE = '00000000-0000-7000-8000-0000000000a1';
const TWO = '00000000-0000-7000-8000-0000000000a2';
const task = (n: number) => `00000000-0000-7000-8000-0000000001${String(n).padStart(2, '0')}`;
const comment = (n: number) => `00000000-0000-7000-8000-0000000003${String(n).padStart(2, '0')}`;

describe('migration 0027: each comment carries its task’s project', () => {
  let db: Connection;

  beforeAll(async () => {
    db = await connect();
    await applyMigrations(db, (idx) => idx < 27);
    await db.run(`
      insert into users (id, name, email, password_hash) values ('${OWNER}', 'Old', 'old@example.com', 'x');
      insert into projects (id, name, owner_id, key) values ('${ONE}', 'One', '${OWNER}', 'ONE'), ('${TWO}', 'Two', '${OWNER}', 'TWO');
      insert into tasks (id, project_id, title, status, created_by_id, number, position) values
        ('${task(1)}', '${ONE}', 'One', 'TODO', '${OWNER}', 1, 'a0'),
        ('${task(2)}', '${TWO}', 'Two', 'TODO', '${OWNER}', 1, 'a0');
      insert into comments (id, task_id, author_id, text) values
        ('${comment(1)}', '${task(1)}', '${OWNER}', 'first'),
        ('${comment(2)}', '${task(1)}', '${OWNER}', 'second'),
        ('${comment(3)}', '${task(2)}', '${OWNER}', 'third');
    `);
    await applyMigrations(db, (idx) => idx === 27);
  });
  afterAll(() => db?.close());

  const projectsOfComments = () => db.rows<{ id: string; project_id: string }>('select id, project_id from comments order by id');

  it('fills each comment’s project from its task', async () => {
    expect(await projectsOfComments()).toEqual([
      { id: comment(1), project_id: ONE },
      { id: comment(2), project_id: ONE },
      { id: comment(3), project_id: TWO },
    ]);
  });

  it('indexes the project and names it by a foreign key that deletes with the project', async () => {
    expect(await db.rows(`select indexdef from pg_indexes where indexname = 'comments_project_idx'`)).toEqual([{ indexdef: expect.stringMatching(/ON (public\.)?comments USING btree \(project_id\)/) }]);
    expect(await db.rows(`select confdeltype, pg_get_constraintdef(oid) as def from pg_constraint where conname = 'comments_project_id_projects_id_fk'`)).toEqual([
      { confdeltype: 'c', def: 'FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE' },
    ]);
  });

  it('requires the project from then on, and deletes a project’s comments with it', async () => {
    await expect(db.run(`insert into comments (id, task_id, author_id, text) values ('${comment(4)}', '${task(1)}', '${OWNER}', 'no project')`)).rejects.toThrow(/project_id/);
    await db.run(`delete from projects where id = '${TWO}'`);
    expect(await projectsOfComments()).toEqual([
      { id: comment(1), project_id: ONE },
      { id: comment(2), project_id: ONE },
    ]);
  });
});
