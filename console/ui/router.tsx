/** Pages by URL (history API): every page can be linked to, reloaded and shared. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};
window.addEventListener('popstate', changed);

export function navigate(href: string): void {
  history.pushState(null, '', href);
  changed();
  window.scrollTo(0, 0);
}

/** The current address; re-renders its user on every navigation. */
export function useLocation(): URL {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return new URL(window.location.href);
}

/** A link that changes page without a reload; a modified click (new tab…) is the browser's. */
export function Link(props: { href: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' }) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props['aria-current']}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

/** The address with some query parameters set (undefined or '' removes one). */
export function withQuery(url: URL, changes: Record<string, string | undefined>): string {
  const next = new URL(url.href);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === '') next.searchParams.delete(key);
    else next.searchParams.set(key, value);
  }
  return `${next.pathname}${next.search}`;
}
