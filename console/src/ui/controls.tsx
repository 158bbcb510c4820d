/** Small shared controls: labelled fields, the pager, status messages, a confirm dialog, a copy button. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

let fieldCount = 0;
function useId(prefix: string): string {
  const id = useRef<string | undefined>(undefined);
  if (!id.current) id.current = `${prefix}-${++fieldCount}`;
  return id.current;
}

export function TextField(props: { label: string; value: string; onInput: (v: string) => void; type?: 'text' | 'number' | 'password' | 'date' | 'datetime-local'; placeholder?: string; required?: boolean; hint?: string; autoComplete?: string; name?: string; min?: number; step?: number | 'any' }) {
  const id = useId('f');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name ?? id}
        // Preact's input types are a union by `type`; every type listed here takes these attributes.
        {...({ type: props.type ?? 'text' } as { type: 'text' })}
        value={props.value}
        placeholder={props.placeholder}
        required={props.required}
        min={props.min}
        step={props.step}
        autoComplete={props.autoComplete ?? 'off'}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A labelled multi-line text field (one entry per line). */
export function TextAreaField(props: { label: string; value: string; onInput: (v: string) => void; hint?: string; rows?: number }) {
  const id = useId('t');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        rows={props.rows ?? 3}
        value={props.value}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onInput={(e) => props.onInput((e.currentTarget as HTMLTextAreaElement).value)}
      />
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

export function SelectField(props: { label: string; value: string; onChange: (v: string) => void; options: ReadonlyArray<readonly [string, string]> }) {
  const id = useId('s');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}>
        {props.options.map(([v, text]) => (
          <option value={v} key={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Pager(props: { page: number; hasMore: boolean; nextCursor: string | null; onNext: (c: string) => void; onPrev: () => void; label: string }) {
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" onClick={props.onPrev} disabled={props.page <= 1}>
        Previous page
      </button>
      <span aria-live="polite">Page {props.page}</span>
      <button type="button" onClick={() => props.nextCursor && props.onNext(props.nextCursor)} disabled={!props.hasMore || !props.nextCursor}>
        Next page
      </button>
    </nav>
  );
}

export function Status(props: { loading?: boolean; error?: string | undefined; empty?: boolean; emptyText?: string }) {
  if (props.error) return <p role="alert" class="error">{props.error}</p>;
  if (props.loading) return <p class="muted" aria-live="polite">Loading…</p>;
  if (props.empty) return <p class="muted">{props.emptyText ?? 'Nothing here yet.'}</p>;
  return null;
}

/** A modal dialog (the platform's <dialog>: focus stays inside, Escape closes). */
export function Dialog(props: { title: string; open: boolean; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  const titleId = useId('dlg');
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={props.onClose} onCancel={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      {props.open && props.children}
    </dialog>
  );
}

export function Confirm(props: { open: boolean; title: string; message: string; confirmText: string; dismissText?: string; danger?: boolean; onConfirm: () => void; onClose: () => void }) {
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      <p>{props.message}</p>
      <div class="actions">
        <button type="button" onClick={props.onClose}>
          {props.dismissText ?? 'Cancel'}
        </button>
        <button type="button" class={props.danger ? 'danger' : 'primary'} onClick={props.onConfirm}>
          {props.confirmText}
        </button>
      </div>
    </Dialog>
  );
}

export function CopyButton(props: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(props.text).then(() => setDone(true), () => setDone(false));
      }}
    >
      {done ? 'Copied' : props.label}
    </button>
  );
}

export function Badge(props: { tone: 'ok' | 'warn' | 'bad' | 'muted'; children: ComponentChildren }) {
  return <span class={`badge ${props.tone}`}>{props.children}</span>;
}

/** A key as rows name it: its name, and its id beside it (the id alone for a key no longer known). */
export function KeyLabel(props: { id: string; name: string | null | undefined }) {
  const { id, name } = props;
  if (!id) return <>(none)</>;
  if (!name || name === id) return <code>{id}</code>;
  return (
    <>
      {name} <code class="muted">{id}</code>
    </>
  );
}
