import type { tasklist as TaskList } from '@mdit/plugin-tasklist';
import type { Member, Project } from '@tasklane/schemas';
import type DOMPurifyFactory from 'dompurify';
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { keys, loadProjects } from './data';
import { useQuery } from './hooks';

/**
 * Markdown of task descriptions and comments (issue 39), the app's one renderer of it: CommonMark
 * with GitHub's tables, strikethrough, bare links and task lists; `@Full Name` of a member links to
 * the project's members page and a task key (`ENG-42`) of a project the person is in to `/tasks/ENG-42`.
 *
 * Text written by others becomes HTML here, so it is defended twice: markdown-it never passes HTML
 * through (`html: false`) and accepts only the link protocols below; DOMPurify then sanitises its
 * output with the same allow-list, so a bug or a plugin of the first cannot let a script, an event
 * handler or a `javascript:`/`data:` link through.
 *
 * The two libraries (~150 KB) load apart from the app, when the first text is shown (a task opened):
 * the board's own first load stays as light as it was. Until then the text shows as plain text.
 */

/** http(s), mailto, and addresses of the app itself (no protocol): anything else is no link. */
const SAFE_URL = /^(?:(?:https?|mailto):|[^a-z]|[a-z][a-z0-9+.-]*(?:[^a-z0-9+.:-]|$))/i;

/** What the renderer needs to know besides the text: whose names and which keys become links. */
export interface MarkdownContext {
  /** The project whose members page a mention links to. */
  projectId: string;
  members: readonly Pick<Member, 'name'>[];
  /** Project keys whose task keys become links (`ENG` links `ENG-42`). */
  projectKeys: readonly string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One pattern for a context's mentions and task keys: `@` and a member's name (the longest first,
 * so "@Ada Lovelace" wins over "@Ada"), or a key; neither inside a word.
 */
function referencePattern(context: MarkdownContext): RegExp | undefined {
  const names = [...new Set(context.members.map((member) => member.name))].filter(Boolean).sort((a, b) => b.length - a.length);
  const projectKeys = context.projectKeys.filter((key) => /^[A-Za-z][A-Za-z0-9]{1,9}$/.test(key));
  const parts = [
    ...(names.length > 0 ? [`@(?:${names.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}_])`] : []),
    ...(projectKeys.length > 0 ? [`(?<![\\p{L}\\p{N}_-])(?:${projectKeys.map(escapeRegExp).join('|')})-[1-9][0-9]{0,9}(?![\\p{L}\\p{N}_])`] : []),
  ];
  return parts.length > 0 ? new RegExp(parts.join('|'), 'gu') : undefined;
}

/** A core rule: the text of each inline run (outside links and code) split into text and links to references. */
function referenceLinks(md: MarkdownIt) {
  md.core.ruler.push('tasklane_references', (state: StateCore) => {
    const context = (state.env as { tasklane?: MarkdownContext }).tasklane;
    const pattern = context && referencePattern(context);
    if (!context || !pattern) return false;
    for (const block of state.tokens) {
      if (block.type !== 'inline' || !block.children) continue;
      const children: Token[] = [];
      let inLink = 0;
      for (const token of block.children) {
        if (token.type === 'link_open') inLink += 1;
        if (token.type === 'link_close') inLink -= 1;
        if (token.type !== 'text' || inLink > 0) {
          children.push(token);
          continue;
        }
        let at = 0;
        for (const match of token.content.matchAll(pattern)) {
          const found = match[0];
          if (match.index > at) children.push(textToken(state, token.content.slice(at, match.index)));
          const href = found.startsWith('@') ? `/projects/${encodeURIComponent(context.projectId)}/members` : `/tasks/${encodeURIComponent(found)}`;
          const open = new state.Token('link_open', 'a', 1);
          open.attrs = [
            ['href', href],
            ['class', found.startsWith('@') ? 'mention' : 'task-ref'],
          ];
          children.push(open, textToken(state, found), new state.Token('link_close', 'a', -1));
          at = match.index + found.length;
        }
        if (at === 0) children.push(token);
        else if (at < token.content.length) children.push(textToken(state, token.content.slice(at)));
      }
      block.children = children;
    }
    return true;
  });
}

function textToken(state: StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

/** The renderer: markdown-it and DOMPurify, configured as above. */
function createRenderer(Markdown: typeof MarkdownIt, DOMPurify: typeof DOMPurifyFactory, tasklist: typeof TaskList) {
  const markdown = new Markdown('default', { html: false, linkify: true, typographer: false, breaks: true })
    // `default` already has GitHub's tables and strikethrough; task lists come from the plugin
    // (read-only checkboxes: ticking one would not change the text).
    .use(tasklist, { disabled: true, label: true })
    .use(referenceLinks);
  markdown.validateLink = (url) => SAFE_URL.test(url.trim());

  // Every link the text makes: one that leaves the app opens apart from it and tells the other site nothing.
  const purifier = DOMPurify();
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return;
    const href = node.getAttribute('href') ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  });

  /** The task list plugin numbers its checkboxes per render: this keeps ids unique across a page of comments. */
  let checkboxes = 1;

  /** Markdown `text` as sanitised HTML (a string for `dangerouslySetInnerHTML`). */
  return (text: string, context?: MarkdownContext): string => {
    const env: { tasklane?: MarkdownContext; tasklistId: number } = { tasklistId: checkboxes, ...(context ? { tasklane: context } : {}) };
    const html = markdown.render(text, env);
    checkboxes = env.tasklistId;
    return purifier.sanitize(html, {
      ALLOWED_URI_REGEXP: SAFE_URL,
      FORBID_TAGS: ['style', 'form', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
      FORBID_ATTR: ['style'],
    });
  };
}

type Render = ReturnType<typeof createRenderer>;
let renderer: Render | undefined;
let loading: Promise<Render> | undefined;

/** The renderer, its libraries loaded once (a failed load, offline, is tried again next time). */
function loadRenderer(): Promise<Render> {
  loading ??= Promise.all([import('markdown-it'), import('dompurify'), import('@mdit/plugin-tasklist')]).then(
    ([markdownIt, dompurify, plugin]) => (renderer = createRenderer(markdownIt.default, dompurify.default, plugin.tasklist)),
    (failure: unknown) => {
      loading = undefined;
      throw failure;
    },
  );
  return loading;
}

/** The project keys whose task keys the signed-in person can open: those of their projects. */
export function useProjectKeys(project: Pick<Project, 'key'>): string[] {
  const projects = useQuery(keys.projects, loadProjects);
  return useMemo(() => [...new Set([project.key, ...(projects.data ?? []).map((other) => other.key)])], [project.key, projects.data]);
}

/** Rendered Markdown in a `div.markdown`; `label` names it for screen readers when given. */
export function Markdown({ text, project, members, label, class: extra }: { text: string; project: Pick<Project, 'id' | 'key'>; members: readonly Pick<Member, 'name'>[]; label?: string; class?: string }) {
  const projectKeys = useProjectKeys(project);
  const [ready, setReady] = useState(Boolean(renderer));
  useEffect(() => {
    if (!ready) void loadRenderer().then(() => setReady(true), () => undefined);
  }, []);
  const html = useMemo(() => renderer?.(text, { projectId: project.id, members, projectKeys }), [ready, text, project.id, members, projectKeys]);
  const props = { class: extra ? `markdown ${extra}` : 'markdown', 'aria-label': label, role: label ? ('region' as const) : undefined };
  // Not loaded yet (or offline): the text as it was written, as text.
  if (html === undefined) return <div {...props}><p class="markdown-plain">{text}</p></div>;
  return <div {...props} dangerouslySetInnerHTML={{ __html: html }} />;
}
