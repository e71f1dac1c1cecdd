// stream.js: the live stream (Server-Sent Events at /api/v1/stream, cookie-authenticated).
// Events: hello {user, role, server_time}, changes {charge_points: [...] | "*", sessions,
// quality, seq} at most once a second, pipeline (the /health object) every 2 s. Views
// subscribe; the indicator shows whether the stream is connected.

const handlers = { changes: new Set(), pipeline: new Set(), reconnected: new Set(), state: new Set() };

// What the stream did so far: shown on the Pipeline screen, and read by the browser tests.
export const streamStats = {
  live: false, connects: 0, changes: 0, lastSeq: null, seqGaps: 0, pipelineEvents: 0,
  lastPipeline: null, lastEventAt: null,
};

let source = null;
let reopenTimer = null;
let wanted = false;

export function on(kind, fn) { handlers[kind].add(fn); return () => handlers[kind].delete(fn); }

function emit(kind, data) {
  for (const fn of [...handlers[kind]]) {
    try { fn(data); } catch (e) { console.error(`stream ${kind} handler`, e); }
  }
}

function setLive(live) {
  if (streamStats.live === live) return;
  streamStats.live = live;
  const indicator = document.getElementById('live');
  indicator.classList.toggle('live', live);
  indicator.classList.toggle('offline', !live);
  indicator.textContent = live ? 'live' : 'offline';
  indicator.title = live ? 'live stream connected' : 'live stream not connected: reconnecting';
  emit('state', live);
}

function parse(event) {
  try { return JSON.parse(event.data); } catch { return null; }
}

function open() {
  clearTimeout(reopenTimer);
  if (!wanted) return;
  const es = new EventSource('/api/v1/stream', { withCredentials: true });
  source = es;
  es.addEventListener('hello', () => {
    // A new connection numbers its changes afresh; anything missed meanwhile is refetched.
    const wasConnectedBefore = streamStats.connects > 0;
    streamStats.connects += 1;
    streamStats.lastSeq = null;
    setLive(true);
    if (wasConnectedBefore) emit('reconnected');
  });
  es.addEventListener('changes', (event) => {
    const data = parse(event);
    if (!data) return;
    streamStats.changes += 1;
    streamStats.lastEventAt = Date.now();
    if (typeof data.seq === 'number') {
      if (streamStats.lastSeq !== null && data.seq !== streamStats.lastSeq + 1) streamStats.seqGaps += 1;
      streamStats.lastSeq = data.seq;
    }
    setLive(true);
    emit('changes', data);
  });
  es.addEventListener('pipeline', (event) => {
    const data = parse(event);
    if (!data) return;
    streamStats.pipelineEvents += 1;
    streamStats.lastPipeline = data;
    streamStats.lastEventAt = Date.now();
    setLive(true);
    emit('pipeline', data);
  });
  es.addEventListener('error', () => {
    setLive(false);
    // The browser retries by itself after a dropped connection (retry: 2000), but gives up for
    // good after an answer that is not an event stream (e.g. 401 or 503 while the gateway
    // restarts): then open a new one a little later.
    if (es.readyState === EventSource.CLOSED && source === es) {
      reopenTimer = setTimeout(open, 3000);
    }
  });
}

export function startStream() {
  wanted = true;
  if (!source || source.readyState === EventSource.CLOSED) open();
}

export function stopStream() {
  wanted = false;
  clearTimeout(reopenTimer);
  if (source) source.close();
  source = null;
  setLive(false);
}
