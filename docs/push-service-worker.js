/*
 * A service worker for sched's Web Push approval notifications (docs/approvals.md, "Push with buttons").
 * Register it on the origin where your users subscribe (navigator.serviceWorker.register('/push-service-worker.js')),
 * then store their PushSubscription on a team member. Confirm and Decline are answered here, without opening a
 * page; a tap on the notification opens the request's page (to snooze or comment), and so does an answer the
 * service cannot take without the page (a required comment, a closed request).
 */

self.addEventListener('push', (event) => {
  const data = event.data ? event.data.json() : null;
  if (!data?.url) return;
  event.waitUntil(
    self.registration.showNotification(data.title, {
      body: data.body,
      tag: data.actionId,
      renotify: true,
      requireInteraction: true,
      data,
      actions: (data.actions || []).map((a) => ({ action: a.action, title: a.title })),
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  const data = event.notification.data || {};
  event.notification.close();
  if (event.action === 'confirm' || event.action === 'decline') {
    event.waitUntil(answer(data, event.action));
  } else if (data.url) {
    event.waitUntil(self.clients.openWindow(data.url));
  }
});

/**
 * The page's JSON answer, sent as a form so no CORS preflight is needed; `via=push` records where it came from.
 * The answer's outcome replaces the notification; a refusal opens the page, which says why.
 */
async function answer(data, decision) {
  let res;
  try {
    res = await fetch(data.answerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ decision, via: 'push' }).toString(),
    });
  } catch {
    res = null;
  }
  if (!res?.ok) {
    if (data.url) await self.clients.openWindow(data.url);
    return;
  }
  const result = await res.json();
  const done = result.recipient_status === 'confirmed' ? 'Approved' : 'Declined';
  const waiting =
    typeof result.approvals_needed === 'number' ? ` (${result.approvals_needed} more approvals needed)` : '';
  await self.registration.showNotification(`${done}: ${data.title}`, {
    body: `Your answer is recorded${waiting}.`,
    tag: data.actionId,
    data: { url: data.url },
  });
}
