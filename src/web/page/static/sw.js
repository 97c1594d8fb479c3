// The offline shell: the page's own files, served from the cache when the server is unreachable.
// The API is never cached (it is live, and behind the sign-in).
const CACHE = 'klaude-shell-v1';
const SHELL = ['/', '/app.js', '/app.css', '/icon.svg', '/manifest.webmanifest'];
self.addEventListener('install', (e) => e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL))));
self.addEventListener('activate', (e) =>
  e.waitUntil(caches.keys().then((ks) => Promise.all(ks.filter((k) => k !== CACHE).map((k) => caches.delete(k))))),
);
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  e.respondWith(
    fetch(e.request)
      .then((r) => {
        const copy = r.clone();
        if (r.ok) void caches.open(CACHE).then((c) => c.put(e.request, copy));
        return r;
      })
      .catch(() => caches.match(e.request).then((r) => r || caches.match('/'))),
  );
});
// A notification's click: bring a page of klaude forward and open that session there (a new
// window on it when none is open).
self.addEventListener('notificationclick', (e) => {
  e.notification.close();
  const id = e.notification.data && e.notification.data.session;
  e.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      const page = list.find((c) => new URL(c.url).origin === location.origin);
      if (!page) return self.clients.openWindow(id ? `/#s=${id}` : '/');
      if (id) page.postMessage({ open: id });
      return page.focus();
    }),
  );
});
