import { clipComment, clipDescription, clipTitle, dateOf, colorOf, type ImportPlan, type PlannedPerson, type PlannedTask, formatError, textField } from '../plan';
import { arrayOf, isRecord, type JsonKeep, pickKeys, readJson, textOf } from './json';

const MILESTONE = 'Milestone';
const ISSUE = 'GitHub issue';

const PERSON_KEYS = ['login', 'email', 'name'];
const personKeys = (value: unknown) => (isRecord(value) ? pickKeys(value, PERSON_KEYS) : value);

/** What the plan reads of each issue, as the file streams (the API's issues carry much more: users' URLs, reactions). */
const GITHUB_KEEP: JsonKeep = {
  '': (issue) =>
    isRecord(issue)
      ? {
          ...pickKeys(issue, ['title', 'body', 'state', 'state_reason', 'stateReason', 'number', 'html_url', 'url', 'isPullRequest', 'created_at', 'createdAt', 'closed_at', 'closedAt']),
          ...(issue.pull_request !== undefined ? { pull_request: true } : {}),
          labels: arrayOf(issue.labels).map((label) => (isRecord(label) ? pickKeys(label, ['name', 'color']) : label)),
          assignees: arrayOf(issue.assignees).map(personKeys),
          assignee: personKeys(issue.assignee),
          milestone: isRecord(issue.milestone) ? pickKeys(issue.milestone, ['title', 'due_on', 'dueOn']) : issue.milestone,
          comments: arrayOf(issue.comments).map((comment) =>
            isRecord(comment) ? { ...pickKeys(comment, ['body', 'createdAt', 'created_at']), author: personKeys(comment.author), user: personKeys(comment.user) } : comment,
          ),
        }
      : issue,
};

/** A GitHub account as the file names it: a login (and a name or email when the file has one). */
function personOf(value: unknown): PlannedPerson | undefined {
  if (!isRecord(value)) return undefined;
  const login = textOf(value.login);
  const email = textOf(value.email);
  const name = textOf(value.name) || login;
  if (!name && !email) return undefined;
  return { name: name || email, ...(email ? { email } : {}) };
}

/**
 * `github`: the JSON array GitHub's issue list API (`GET /repos/{owner}/{repo}/issues`) or
 * `gh issue list --json …` answers. Open issues go to To do and closed ones to Done (a closed one
 * "not planned" to Cancelled); labels keep their colours; the milestone and the issue's number (its
 * URL) become text fields; comments come along when the file has them (`gh --json comments`).
 * Pull requests, which the API lists among issues, are left out with a warning.
 */
export async function githubPlan(file: NodeJS.ReadableStream): Promise<ImportPlan> {
  const issues = await readJson(file, "GitHub's issue list", GITHUB_KEEP);
  if (!Array.isArray(issues) || !issues.every((issue) => isRecord(issue) && typeof issue.title === 'string' && (typeof issue.state === 'string' || typeof issue.number === 'number'))) {
    throw formatError("The file is not GitHub's issue list: a JSON array of issues, each with a title and a state (GET /repos/{owner}/{repo}/issues, or gh issue list --json)");
  }
  const plan: ImportPlan = {
    project: { name: 'GitHub issues', description: '' },
    // A new project's own: open issues are TODO, closed ones DONE (CANCELLED when not planned).
    states: [
      { name: 'To do', category: 'unstarted', key: 'TODO' },
      { name: 'Done', category: 'completed', key: 'DONE' },
      { name: 'Cancelled', category: 'cancelled', key: 'CANCELLED' },
    ],
    labels: [],
    fields: [],
    tasks: [],
    warnings: [],
  };
  const labelColors = new Map<string, string>();
  const labelSpelling = new Map<string, string>();
  let pullRequests = 0;
  const repositories = new Set<string>();
  for (const issue of issues as Record<string, unknown>[]) {
    if (issue.pull_request !== undefined || issue.isPullRequest === true) {
      pullRequests += 1;
      continue;
    }
    const url = textOf(issue.html_url) || textOf(issue.url);
    const repository = /github\.com\/([^/]+\/[^/]+)\/issues\//.exec(url)?.[1] ?? /repos\/([^/]+\/[^/]+)\/issues\//.exec(url)?.[1];
    if (repository) repositories.add(repository);
    const state = textOf(issue.state).toLowerCase();
    const reason = textOf(issue.state_reason ?? issue.stateReason).toLowerCase();
    const labels: string[] = [];
    for (const label of arrayOf(issue.labels)) {
      const name = isRecord(label) ? textOf(label.name) : textOf(label);
      if (!name) continue;
      labels.push(name);
      if (isRecord(label) && !labelColors.has(name.toLowerCase())) labelColors.set(name.toLowerCase(), colorOf(label.color));
      if (!labelSpelling.has(name.toLowerCase())) labelSpelling.set(name.toLowerCase(), name);
    }
    const assignees = arrayOf(issue.assignees).map(personOf).filter((person) => person !== undefined);
    const single = personOf(issue.assignee);
    if (assignees.length === 0 && single) assignees.push(single);
    const number = typeof issue.number === 'number' ? issue.number : undefined;
    const milestone = isRecord(issue.milestone) ? textOf(issue.milestone.title) : '';
    const dueOn = isRecord(issue.milestone) ? dateOf(issue.milestone.due_on ?? issue.milestone.dueOn) : undefined;
    const task: PlannedTask = {
      ref: number !== undefined ? String(number) : `#${plan.tasks.length}`,
      title: clipTitle(textOf(issue.title)),
      description: clipDescription(textOf(issue.body)),
      state: state === 'closed' ? (reason === 'not_planned' ? 'Cancelled' : 'Done') : 'To do',
      labels,
      comments: arrayOf(issue.comments).filter(isRecord).map((comment) => ({
        author: personOf(comment.author ?? comment.user),
        text: clipComment(textOf(comment.body)),
        ...(dateOf(comment.createdAt ?? comment.created_at) ? { createdAt: dateOf(comment.createdAt ?? comment.created_at)! } : {}),
      })).filter((comment) => comment.text.trim() !== ''),
      relations: [],
      fields: {
        ...(number !== undefined ? { [ISSUE]: url || `#${number}` } : {}),
        ...(milestone ? { [MILESTONE]: milestone } : {}),
      },
      ...(assignees[0] ? { assignee: assignees[0] } : {}),
      ...(dueOn ? { dueDate: dueOn } : {}),
      ...(dateOf(issue.created_at ?? issue.createdAt) ? { createdAt: dateOf(issue.created_at ?? issue.createdAt)! } : {}),
      ...(dateOf(issue.closed_at ?? issue.closedAt) ? { completedAt: dateOf(issue.closed_at ?? issue.closedAt)! } : {}),
    };
    if (assignees.length > 1) plan.warnings.push(`#${number ?? '?'} ${task.title}: assigned to ${assignees.map((person) => person.name).join(', ')}; a task has one assignee, so it is ${assignees[0]!.name}`);
    plan.tasks.push(task);
  }
  // The API lists newest first: the project reads oldest first, as the issues were opened.
  plan.tasks.sort((a, b) => Number(a.ref) - Number(b.ref) || 0);
  plan.labels = [...labelColors.entries()].map(([lower, color]) => ({ name: labelSpelling.get(lower) ?? lower, color }));
  if (repositories.size === 1) plan.project.name = [...repositories][0]!;
  if (plan.tasks.some((task) => task.fields[ISSUE])) plan.fields.push(textField(ISSUE));
  if (plan.tasks.some((task) => task.fields[MILESTONE])) plan.fields.push(textField(MILESTONE));
  if (pullRequests > 0) plan.warnings.push(`${pullRequests} pull requests in the file were left out: only issues are imported`);
  return plan;
}
