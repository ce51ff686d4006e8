// A Web Worker's timer: hidden tabs throttle the page's own timers to one wake-up a minute,
// a dedicated worker's are not, so heartbeats keep their pace in the background.
let timer = null;
onmessage = (e) => {
  clearInterval(timer);
  if (e.data && e.data.every > 0) timer = setInterval(() => postMessage('beat'), e.data.every);
};
