// The installable app: registers the service worker (sw.js) that keeps this build's files on the
// device, so the page opens, and plays against the computer, without a network.

// Registers "/sw.js" once the page has loaded (its first caching then does not compete with the
// page's own downloads). Browsers without service workers, and pages not served over http(s),
// go without. `onUpdated()` is called when a newer build's worker takes over this page, which
// still runs the old code: the page may offer "Reload for the new version". A first worker taking
// over a page that had none is no update. `onOpen(path)`: a click on one of the page's system
// notifications (sw.js) asks this page to show `path` ("/g/CODE" or "/").
export function registerServiceWorker(onUpdated, onOpen) {
  if (!("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  const sw = navigator.serviceWorker;
  let controlled = !!sw.controller;
  sw.addEventListener("message", (ev) => {
    const d = ev.data;
    if (d?.type === "tf-open" && typeof d.url === "string" && /^\/(g\/[A-Za-z0-9]{1,16})?$/.test(d.url)) onOpen?.(d.url);
  });
  sw.addEventListener("controllerchange", () => {
    if (controlled) onUpdated?.();
    controlled = true;
  });
  const register = () =>
    sw.register("/sw.js").catch((e) => console.warn("trunkfield: no service worker:", e.message));
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
