/**
 * Start agents in a project: type, prompt, and the options `klaude start` takes (worktree, model,
 * skill, priority, sandbox). Every field has a label; the type is picked from the types the project
 * knows (the server reads the same definitions `klaude start` does), so a type that does not exist
 * can't be asked for.
 */
import { useState } from 'react';
import type { WebProject } from '../hub.js';
import { api, describe } from './api.js';
import { projectNames } from './display.js';
import { Rich } from './rich-text.js';

const DEFAULT_TYPE = 'general';

function typesOf(p: WebProject | undefined): string[] {
  const t = p?.agentTypes ?? [];
  return t.length > 0 ? t : [DEFAULT_TYPE];
}

export function StartForm({ projects, started }: { projects: WebProject[]; started: (id: string) => void }) {
  const [project, setProject] = useState(projects[0]?.id ?? '');
  const [type, setType] = useState(DEFAULT_TYPE);
  const [prompt, setPrompt] = useState('');
  const [worktree, setWorktree] = useState(false);
  const [model, setModel] = useState('');
  const [more, setMore] = useState<MoreOptions>({ skill: '', priority: '', sandbox: '' });
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = projects.find((p) => p.id === project) ?? projects[0];
  const types = typesOf(chosen);
  // A type the newly picked project lacks falls back to its first (general where it exists).
  const kind = types.includes(type) ? type : types.includes(DEFAULT_TYPE) ? DEFAULT_TYPE : types[0]!;
  const names = projectNames(projects.map((p) => p.root));
  const submit = (): void => {
    setBusy(true);
    setErr(null);
    api
      .post<{ sessionIds: string[] }>('/api/start', {
        project: chosen?.id,
        type: kind,
        prompt,
        worktree,
        ...(model.trim() ? { model: model.trim() } : {}),
        ...moreBody(more),
      })
      .then((r) => {
        setPrompt('');
        if (r.sessionIds[0]) started(r.sessionIds[0]);
      })
      .catch((x: unknown) => setErr(describe(x)))
      .finally(() => setBusy(false));
  };
  return (
    <form className="start" data-testid="start-form" onSubmit={(e) => (e.preventDefault(), submit())}>
      <label className="field">
        <span>Project</span>
        <select value={chosen?.id ?? ''} onChange={(e) => setProject(e.target.value)} data-testid="start-project">
          {projects.map((p) => (
            <option key={p.id} value={p.id} title={p.root}>
              {names.get(p.root) ?? p.root}
            </option>
          ))}
        </select>
        {chosen ? <small className="muted">{chosen.root}</small> : null}
      </label>
      <label className="field">
        <span>Agent type</span>
        <select value={kind} onChange={(e) => setType(e.target.value)} data-testid="start-type">
          {types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>What should it do?</span>
        <textarea value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="start-prompt" />
      </label>
      <label className="check">
        <input type="checkbox" checked={worktree} onChange={(e) => setWorktree(e.target.checked)} />
        <span>Work in its own git worktree</span>
      </label>
      <label className="field">
        <span>Model (optional)</span>
        <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="the type's default" />
      </label>
      <MoreFields more={more} set={setMore} />
      <button disabled={busy || !prompt.trim()} data-testid="start-submit">
        Start
      </button>
      {err ? (
        <div className="error" role="alert">
          <Rich text={err} />
        </div>
      ) : null}
    </form>
  );
}

/** Skill, priority and sandbox: empty means the type's own (or the config's). */
interface MoreOptions {
  skill: string;
  priority: string;
  sandbox: string;
}

function moreBody(m: MoreOptions): Record<string, string> {
  return {
    ...(m.skill.trim() ? { skill: m.skill.trim() } : {}),
    ...(m.priority ? { priority: m.priority } : {}),
    ...(m.sandbox ? { sandbox: m.sandbox } : {}),
  };
}

function MoreFields({ more, set }: { more: MoreOptions; set: (m: MoreOptions) => void }) {
  return (
    <>
      <label className="field">
        <span>Skill (optional)</span>
        <input
          value={more.skill}
          onChange={(e) => set({ ...more, skill: e.target.value })}
          placeholder="none: the prompt is the task"
          data-testid="start-skill"
        />
        <small className="muted">a Claude Code skill it runs; the prompt is then its arguments</small>
      </label>
      <label className="field">
        <span>Priority in the run queue</span>
        <select
          value={more.priority}
          onChange={(e) => set({ ...more, priority: e.target.value })}
          data-testid="start-priority"
        >
          <option value="">the type&apos;s (normal if it says none)</option>
          <option value="high">high</option>
          <option value="normal">normal</option>
          <option value="low">low</option>
        </select>
      </label>
      <label className="field">
        <span>Sandbox</span>
        <select
          value={more.sandbox}
          onChange={(e) => set({ ...more, sandbox: e.target.value })}
          data-testid="start-sandbox"
        >
          <option value="">the type&apos;s, else the config&apos;s (agents.sandbox)</option>
          <option value="on">on: refuse to start without one</option>
          <option value="off">off: run unsandboxed</option>
        </select>
      </label>
    </>
  );
}
