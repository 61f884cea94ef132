// Each figure against the number of flags, one line per service, as SVG: logarithmic x, and
// logarithmic y when the values span more than a factor of ten.
import { FIGURES, type FigureKey, type FigureSpec } from "./figures.js";
import { LABELS, SERVICES, type ServiceName } from "./servers.js";

export type Series = Record<ServiceName, [flags: number, value: number][]>;

const COLOURS: Record<ServiceName, string> = {
  "signalbox-pg": "#1f6feb",
  "signalbox-embedded": "#2da44e",
  reference: "#cf222e",
};
const WIDTH = 420;
const HEIGHT = 280;
const MARGIN = { left: 64, right: 16, top: 46, bottom: 44 };

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function format(value: number): string {
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e4) return `${+(value / 1e3).toPrecision(3)}k`;
  return String(+value.toPrecision(3));
}

/** Tick values: powers of ten on a log axis (with 2 and 5 when there are few), even steps otherwise. */
function ticks(low: number, high: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    const decades = Math.log10(high) - Math.log10(low);
    for (let exponent = Math.floor(Math.log10(low)); exponent <= Math.ceil(Math.log10(high)); exponent++) {
      for (const mantissa of decades < 2 ? [1, 2, 5] : [1]) {
        const value = mantissa * 10 ** exponent;
        if (value >= low * 0.999 && value <= high * 1.001) out.push(value);
      }
    }
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((high - low) / 4 || 1));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => (high - low) / s <= 6) ?? step * 10;
  const out: number[] = [];
  for (let value = Math.ceil(low / nice) * nice; value <= high + nice * 1e-9; value += nice) out.push(value);
  return out;
}

/** One figure's chart as an SVG group, its top left corner at (x, y). */
function panel(key: FigureKey, series: Series, x: number, y: number): string {
  const spec: FigureSpec = FIGURES[key];
  const points = SERVICES.flatMap((service) => series[service]);
  const xs = points.map(([flags]) => flags);
  const ys = points.map(([, value]) => value).filter((value) => Number.isFinite(value));
  const parts = [`<g transform="translate(${x},${y})">`];
  parts.push(
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-weight="bold">${xmlText(spec.label)}${spec.unit ? ` (${xmlText(spec.unit)})` : ""}</text>`,
  );
  if (ys.length === 0) {
    parts.push(`<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no data</text></g>`);
    return parts.join("");
  }
  const xLow = Math.min(...xs);
  const xHigh = Math.max(...xs) === xLow ? xLow * 10 : Math.max(...xs);
  const positive = ys.every((value) => value > 0);
  const yLog = positive && Math.max(...ys) / Math.min(...ys) > 10;
  const yLow = yLog ? 10 ** Math.floor(Math.log10(Math.min(...ys))) : Math.min(0, ...ys);
  const yHigh = yLog ? 10 ** Math.ceil(Math.log10(Math.max(...ys))) : Math.max(...ys) * 1.1 || 1;
  const left = MARGIN.left;
  const right = WIDTH - MARGIN.right;
  const top = MARGIN.top;
  const bottom = HEIGHT - MARGIN.bottom;
  const px = (flags: number) =>
    left + ((Math.log10(flags) - Math.log10(xLow)) / (Math.log10(xHigh) - Math.log10(xLow))) * (right - left);
  const py = (value: number) =>
    yLog
      ? bottom -
        ((Math.log10(value) - Math.log10(yLow)) / (Math.log10(yHigh) - Math.log10(yLow))) * (bottom - top)
      : bottom - ((value - yLow) / (yHigh - yLow)) * (bottom - top);
  parts.push(
    `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="none" stroke="#999"/>`,
  );
  for (const tick of ticks(xLow, xHigh, true)) {
    parts.push(
      `<line x1="${px(tick)}" x2="${px(tick)}" y1="${top}" y2="${bottom}" stroke="#eee"/>`,
      `<text x="${px(tick)}" y="${bottom + 16}" text-anchor="middle">${format(tick)}</text>`,
    );
  }
  for (const tick of ticks(yLow, yHigh, yLog)) {
    parts.push(
      `<line x1="${left}" x2="${right}" y1="${py(tick)}" y2="${py(tick)}" stroke="#eee"/>`,
      `<text x="${left - 6}" y="${py(tick) + 4}" text-anchor="end">${format(tick)}</text>`,
    );
  }
  parts.push(
    `<text x="${(left + right) / 2}" y="${HEIGHT - 8}" text-anchor="middle">flags (log)${yLog ? ", y log" : ""}</text>`,
  );
  for (const service of SERVICES) {
    const line = series[service].filter(([, value]) => Number.isFinite(value) && (!yLog || value > 0));
    if (line.length === 0) continue;
    const colour = COLOURS[service];
    parts.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${line.map(([f, v]) => `${px(f).toFixed(1)},${py(v).toFixed(1)}`).join(" ")}"/>`,
      ...line.map(
        ([f, v]) => `<circle cx="${px(f).toFixed(1)}" cy="${py(v).toFixed(1)}" r="3" fill="${colour}"/>`,
      ),
    );
  }
  // The legend on one line under the title, clear of the lines.
  SERVICES.forEach((service, i) => {
    const x0 = 8 + i * ((WIDTH - 16) / SERVICES.length);
    parts.push(
      `<rect x="${x0}" y="${top - 17}" width="9" height="9" fill="${COLOURS[service]}"/>`,
      `<text x="${x0 + 13}" y="${top - 9}" font-size="10">${xmlText(LABELS[service])}</text>`,
    );
  });
  parts.push("</g>");
  return parts.join("");
}

const svg = (title: string, width: number, height: number, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11"><title>${xmlText(title)}</title><rect width="100%" height="100%" fill="white"/>${body}</svg>\n`;

export function chart(key: FigureKey, series: Series): string {
  return svg(
    `Scale benchmark: ${FIGURES[key].label} against the number of flags`,
    WIDTH,
    HEIGHT,
    panel(key, series, 0, 0),
  );
}

/** Every figure in a grid, `columns` wide. */
export function grid(all: [FigureKey, Series][], columns = 4): string {
  const rows = Math.ceil(all.length / columns);
  return svg(
    "Scale benchmark: every figure against the number of flags",
    WIDTH * columns,
    HEIGHT * rows,
    all
      .map(([key, series], i) => panel(key, series, (i % columns) * WIDTH, Math.floor(i / columns) * HEIGHT))
      .join(""),
  );
}
