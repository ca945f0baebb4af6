/** Data a page loads: loading, the answer or the reason it failed, reloaded when its key changes. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'failed'; reason: string };

export function useLoad<T>(key: string, load: () => Promise<T>): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (value) => current && setLoaded({ state: 'ready', value }),
      (error: unknown) => current && setLoaded({ state: 'failed', reason: (error as Error).message }),
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  return [loaded, () => setRound((n) => n + 1)];
}

/** The answer's view once it is there; otherwise what is happening, said to screen readers too. */
export function Show<T>(props: { loaded: Loaded<T>; what: string; children: (value: T) => ComponentChildren }) {
  const { loaded } = props;
  if (loaded.state === 'loading')
    return (
      <p class="muted" role="status">
        Loading {props.what}…
      </p>
    );
  if (loaded.state === 'failed')
    return (
      <p class="error" role="alert">
        Could not load {props.what}: {loaded.reason}
      </p>
    );
  return <>{props.children(loaded.value)}</>;
}
