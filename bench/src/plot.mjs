// The run's plot: per scenario, requests per second and p99 latency of the service and of its bare
// floor, on logarithmic axes, as a self-contained SVG (no dependencies).
import { LABELS } from './report.mjs';

const SERIES = [
  ['service', '#2563eb', (row) => row],
  ['bare floor', '#10b981', (row) => row.floors.bare],
];
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const format = (value) => (value >= 100 ? Math.round(value).toLocaleString('en-US') : String(Number(value.toFixed(1))));

/** A logarithmic axis over `values` mapped onto [x0, x1]. */
function logAxis(values, x0, x1) {
  const low = 10 ** Math.floor(Math.log10(Math.max(1, Math.min(...values))));
  const high = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  const at = (value) => x0 + ((Math.log10(Math.max(value, low)) - Math.log10(low)) / (Math.log10(high) - Math.log10(low))) * (x1 - x0);
  const ticks = [];
  for (let tick = low; tick <= high; tick *= 10) ticks.push(tick);
  return { at, ticks };
}

/** The SVG of a PostgreSQL section's rows that have floors. */
export function plotSvg(section, title) {
  const rows = section.rows.filter((row) => row.floors);
  const barHeight = 9;
  const groupHeight = SERIES.length * barHeight + 10;
  const top = 70;
  const height = top + rows.length * groupHeight + 30;
  const panels = [
    { name: 'requests per second (more is better)', key: 'rps', x0: 250, x1: 590 },
    { name: 'p99 latency, ms (less is better)', key: 'p99', x0: 640, x1: 950 },
  ];
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="980" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="13" font-weight="bold">${escape(title)}</text>`,
  ];
  SERIES.forEach(([name, colour], index) => {
    parts.push(`<rect x="${250 + index * 150}" y="30" width="12" height="10" fill="${colour}"/><text x="${266 + index * 150}" y="39">${name}</text>`);
  });
  for (const panel of panels) {
    const values = rows.flatMap((row) => SERIES.map(([, , of]) => of(row)[panel.key])).filter((value) => value > 0);
    const axis = logAxis(values, panel.x0, panel.x1);
    parts.push(`<text x="${panel.x0}" y="${top - 10}" font-weight="bold">${panel.name}</text>`);
    for (const tick of axis.ticks) {
      const x = axis.at(tick).toFixed(1);
      parts.push(`<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${height - 26}" stroke="#ddd"/><text x="${x}" y="${height - 12}" text-anchor="middle" fill="#666">${format(tick)}</text>`);
    }
    rows.forEach((row, rowIndex) => {
      SERIES.forEach(([, colour, of], index) => {
        const value = of(row)[panel.key];
        const y = top + rowIndex * groupHeight + index * barHeight;
        const width = Math.max(1, axis.at(value) - panel.x0);
        parts.push(`<rect x="${panel.x0}" y="${y}" width="${width.toFixed(1)}" height="${barHeight - 1}" fill="${colour}"/>`);
        parts.push(`<text x="${(panel.x0 + width + 3).toFixed(1)}" y="${y + barHeight - 1}" font-size="9">${format(value)}</text>`);
      });
    });
  }
  rows.forEach((row, rowIndex) => {
    const y = top + rowIndex * groupHeight + (SERIES.length * barHeight) / 2 + 4;
    parts.push(`<text x="240" y="${y}" text-anchor="end">${escape(row.label ?? LABELS[row.scenario])}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
