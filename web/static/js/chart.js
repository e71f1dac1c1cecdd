// chart.js: small hand-written SVG charts (no library). Sizes are in viewBox units; the SVG
// scales to its container. Every chart has a <title> and the screens show the numbers as text
// or a table beside it, so nothing is told by the picture alone.
import { h } from './dom.js';

const W = 720, H = 240, PAD = { left: 56, right: 12, top: 12, bottom: 34 };
const svg = (tag, attrs, ...children) => h(`svg:${tag}`, attrs, ...children);

function niceMax(value) {
  if (!(value > 0)) return 1;
  const exp = Math.pow(10, Math.floor(Math.log10(value)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= value) return m * exp;
  return 10 * exp;
}

function yAxis(max, format) {
  const parts = [];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const y = PAD.top + (H - PAD.top - PAD.bottom) * (1 - i / 4);
    parts.push(svg('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y, y2: y }));
    parts.push(svg('text', { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end' }, format(v)));
  }
  return parts;
}

// Line chart of points [{x: ms, y: number}] (e.g. a session's meter curve).
export function lineChart(title, points, { yFormat = (v) => String(v), xFormat } = {}) {
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  const yMax = niceMax(Math.max(...ys, 0));
  const sx = (x) => PAD.left + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (y) => PAD.top + (1 - y / yMax) * (H - PAD.top - PAD.bottom);
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
  const fmtX = xFormat || ((ms) => new Date(ms).toISOString().slice(11, 19));
  return svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title },
    svg('title', {}, title),
    yAxis(yMax, yFormat),
    svg('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom }),
    svg('text', { x: PAD.left, y: H - 10, 'text-anchor': 'start' }, points.length ? fmtX(x0) : ''),
    svg('text', { x: W - PAD.right, y: H - 10, 'text-anchor': 'end' }, points.length ? fmtX(x1) : ''),
    points.length ? svg('path', { class: 'line', d: path }) : null,
    points.map((p) => svg('circle', { class: 'dot', cx: sx(p.x).toFixed(1), cy: sy(p.y).toFixed(1), r: 2.5 })));
}

// Bar chart by category: series [{key, className, label}] stacked; rows [{label, values: {key: n}}].
export function barChart(title, rows, series, { yFormat = (v) => String(v) } = {}) {
  const totals = rows.map((r) => series.reduce((s, se) => s + (Number(r.values[se.key]) || 0), 0));
  const yMax = niceMax(Math.max(...totals, 0));
  const plotW = W - PAD.left - PAD.right, plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, rows.length);
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const labelEvery = Math.ceil(rows.length / 10);
  const parts = [];
  rows.forEach((r, i) => {
    let base = H - PAD.bottom;
    const x = PAD.left + i * slot + (slot - barW) / 2;
    for (const se of series) {
      const v = Number(r.values[se.key]) || 0;
      const hgt = (v / yMax) * plotH;
      if (hgt > 0) {
        parts.push(svg('rect', { class: se.className, x: x.toFixed(1), y: (base - hgt).toFixed(1),
          width: barW.toFixed(1), height: hgt.toFixed(1) }, svg('title', {}, `${r.label}: ${se.label} ${yFormat(v)}`)));
      }
      base -= hgt;
    }
    if (i % labelEvery === 0) {
      parts.push(svg('text', { x: (x + barW / 2).toFixed(1), y: H - 12, 'text-anchor': 'middle' }, r.label));
    }
  });
  return svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title },
    svg('title', {}, title), yAxis(yMax, yFormat),
    svg('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom }),
    parts);
}

// Status timeline: one lane per connector, segments [{from, to, className, label}] over [t0, t1].
export function timeline(title, lanes, t0, t1) {
  const laneH = 26, top = 8, left = 70, right = 12;
  const height = top + lanes.length * (laneH + 8) + 24;
  const sx = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (W - left - right);
  const parts = [];
  lanes.forEach((lane, i) => {
    const y = top + i * (laneH + 8);
    parts.push(svg('text', { x: left - 8, y: y + laneH / 2 + 4, 'text-anchor': 'end' }, lane.label));
    for (const seg of lane.segments) {
      const x = sx(Math.max(seg.from, t0));
      const w = Math.max(1.5, sx(Math.min(seg.to, t1)) - x);
      parts.push(svg('rect', { class: `seg ${seg.className}`, x: x.toFixed(1), y, width: w.toFixed(1), height: laneH },
        svg('title', {}, seg.label)));
    }
  });
  const fmt = (ms) => new Date(ms).toISOString().slice(5, 16).replace('T', ' ');
  parts.push(svg('text', { x: left, y: height - 6, 'text-anchor': 'start' }, fmt(t0)));
  parts.push(svg('text', { x: W - right, y: height - 6, 'text-anchor': 'end' }, `${fmt(t1)} UTC`));
  return svg('svg', { class: 'chart timeline', viewBox: `0 0 ${W} ${height}`, role: 'img', 'aria-label': title },
    svg('title', {}, title), parts);
}
