/** Start agents in a project: type, prompt, and the options `klaude start` takes. */
import { useState } from 'react';
import type { WebProject } from '../hub.js';
import { api, describe } from './api.js';

export function StartForm({ projects, started }: { projects: WebProject[]; started: (id: string) => void }) {
  const [project, setProject] = useState(projects[0]?.id ?? '');
  const [type, setType] = useState('general');
  const [prompt, setPrompt] = useState('');
  const [worktree, setWorktree] = useState(false);
  const [model, setModel] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="start"
      data-testid="start-form"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setErr(null);
        api
          .post<{ sessionIds: string[] }>('/api/start', {
            project: project || projects[0]?.id,
            type,
            prompt,
            worktree,
            ...(model ? { model } : {}),
          })
          .then((r) => {
            setPrompt('');
            if (r.sessionIds[0]) started(r.sessionIds[0]);
          })
          .catch((x: unknown) => setErr(describe(x)))
          .finally(() => setBusy(false));
      }}
    >
      <select value={project} onChange={(e) => setProject(e.target.value)} aria-label="project">
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.root}
          </option>
        ))}
      </select>
      <input value={type} onChange={(e) => setType(e.target.value)} placeholder="agent type" aria-label="type" />
      <textarea
        value={prompt}
        onChange={(e) => setPrompt(e.target.value)}
        placeholder="what should it do?"
        data-testid="start-prompt"
      />
      <label>
        <input type="checkbox" checked={worktree} onChange={(e) => setWorktree(e.target.checked)} /> own worktree
      </label>
      <input
        value={model}
        onChange={(e) => setModel(e.target.value)}
        placeholder="model (optional)"
        aria-label="model"
      />
      <button disabled={busy || !prompt.trim()} data-testid="start-submit">
        Start
      </button>
      {err ? <div className="error">{err}</div> : null}
    </form>
  );
}
