import { type CharSet, foldedSymbol, type ParsedRegex, type RegexNode, SYMBOLS } from "./regex-syntax.js";

// A parsed pattern compiled to a Thompson automaton and searched with a lazily built DFA,
// as RE2 itself does: each text position costs one table lookup once the states it visits
// are built, so a search is linear in the text whatever the pattern.

const CHAR = 0;
const SPLIT = 1;
const BEGIN = 2;
const END = 3;
const MATCH = 4;

/** Beyond this many instructions (large counted repetitions) the pattern is left to re2js. */
const MAX_INSTRUCTIONS = 2000;
/** Beyond this many DFA states a search falls back to re2js; the states built are kept. */
const MAX_STATES = 256;

const ACCEPTS = 1; // a match ends here: the search is over
const DEAD = 2; // no match can start or continue from here
const ACCEPTS_AT_END = 4; // a match ends here if the text ends here (`$`)

class TooLarge extends Error {}

interface Program {
  op: number[];
  out: number[];
  /** SPLIT's second branch; a CHAR's index into `sets`. */
  arg: number[];
  sets: CharSet[];
  start: number;
}

function compileProgram(root: RegexNode): Program | undefined {
  const program: Program = { op: [], out: [], arg: [], sets: [], start: 0 };
  const emit = (op: number, out: number, arg = -1): number => {
    if (program.op.length >= MAX_INSTRUCTIONS) throw new TooLarge();
    program.op.push(op);
    program.out.push(out);
    program.arg.push(arg);
    return program.op.length - 1;
  };
  // Built back to front: each node is compiled knowing where it continues.
  const compile = (node: RegexNode, next: number): number => {
    switch (node.kind) {
      case "char":
        program.sets.push(node.set);
        return emit(CHAR, next, program.sets.length - 1);
      case "begin":
        return emit(BEGIN, next);
      case "end":
        return emit(END, next);
      case "concat":
        return node.items.reduceRight((entry, item) => compile(item, entry), next);
      case "alternate":
        return node.items
          .map((item) => compile(item, next))
          .reduceRight((rest, entry) => emit(SPLIT, entry, rest));
      case "repeat": {
        let entry = next;
        if (node.max === undefined) {
          const loop = emit(SPLIT, -1, next);
          program.out[loop] = compile(node.item, loop);
          entry = loop;
        } else {
          for (let i = node.min; i < node.max; i++) entry = emit(SPLIT, compile(node.item, entry), next);
        }
        for (let i = 0; i < node.min; i++) entry = compile(node.item, entry);
        return entry;
      }
    }
  };
  try {
    program.start = compile(root, emit(MATCH, -1));
    return program;
  } catch (error) {
    if (error instanceof TooLarge) return undefined;
    throw error;
  }
}

interface Closure {
  /** The CHAR and END instructions reached, in ascending order. */
  pcs: number[];
  match: boolean;
}

export class LazyDfa {
  private readonly program: Program;
  private readonly caseInsensitive: boolean;
  private readonly fallback: (text: string) => boolean;
  private readonly ascii = new Uint8Array(128);
  private readonly ids = new Map<string, number>();
  private readonly states: Closure[] = [];
  private flags = new Uint8Array(16);
  /** The next state by state and symbol; -1 while not yet built. */
  private table = new Int16Array(16 * SYMBOLS).fill(-1);
  private readonly start: number;

  private constructor(program: Program, caseInsensitive: boolean, fallback: (text: string) => boolean) {
    this.program = program;
    this.caseInsensitive = caseInsensitive;
    this.fallback = fallback;
    for (let code = 0; code < 128; code++) this.ascii[code] = foldedSymbol(code, caseInsensitive);
    this.start = this.state(this.closure([program.start], true), true);
  }

  /** The automaton of a parsed pattern, or undefined when it would be too large. */
  static of(parsed: ParsedRegex, fallback: (text: string) => boolean): LazyDfa | undefined {
    const program = compileProgram(parsed.root);
    return program && new LazyDfa(program, parsed.caseInsensitive, fallback);
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    const ascii = this.ascii;
    // Locals for the loop; building a state may replace both.
    let table = this.table;
    let flags = this.flags;
    let state = this.start;
    if ((flags[state]! & ACCEPTS) !== 0) return true;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      let symbol: number;
      if (code < 128) symbol = ascii[code]!;
      else {
        symbol = foldedSymbol(code, this.caseInsensitive);
        // A surrogate pair is one character, as in RE2; a lone surrogate is one too.
        if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
          const low = text.charCodeAt(i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) i++;
        }
      }
      let next = table[state * SYMBOLS + symbol]!;
      if (next < 0) {
        next = this.step(state, symbol);
        if (next < 0) return this.fallback(text);
        table = this.table;
        flags = this.flags;
      }
      state = next;
      const reached = flags[state]!;
      if (reached !== 0) {
        if ((reached & ACCEPTS) !== 0) return true;
        if ((reached & DEAD) !== 0) return false;
      }
    }
    return (flags[state]! & ACCEPTS_AT_END) !== 0;
  }

  /** The instructions reachable from `pcs` without reading a character. */
  private closure(pcs: readonly number[], atBegin: boolean, atEnd = false): Closure {
    const { op, out, arg } = this.program;
    const seen = new Set<number>();
    const reached: number[] = [];
    let match = false;
    const stack = [...pcs];
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen.has(pc)) continue;
      seen.add(pc);
      switch (op[pc]) {
        case SPLIT:
          stack.push(arg[pc]!, out[pc]!);
          break;
        case BEGIN:
          if (atBegin) stack.push(out[pc]!);
          break;
        case END:
          if (atEnd) stack.push(out[pc]!);
          else reached.push(pc);
          break;
        case MATCH:
          match = true;
          break;
        default:
          reached.push(pc);
      }
    }
    return { pcs: reached.sort((a, b) => a - b), match };
  }

  /** The state for a closure, built if new; -1 once the state budget is spent. */
  private state(closure: Closure, atBegin: boolean): number {
    const key = `${atBegin ? "^" : ""}${closure.match ? "!" : ""}${closure.pcs.join(",")}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const id = this.states.length;
    if (id >= MAX_STATES) return -1;
    if (id >= this.flags.length) this.grow();
    this.ids.set(key, id);
    this.states.push(closure);
    const pending = closure.pcs.filter((pc) => this.program.op[pc] === END);
    let flags = 0;
    if (closure.match) flags |= ACCEPTS;
    else if (closure.pcs.length === 0) flags |= DEAD;
    if (pending.length > 0 && this.closure(pending, atBegin, true).match) flags |= ACCEPTS_AT_END;
    this.flags[id] = flags;
    return id;
  }

  private step(from: number, symbol: number): number {
    const { op, out, arg, sets, start } = this.program;
    // A search may start at any position: the start instruction joins every step.
    const targets = [start];
    for (const pc of this.states[from]!.pcs) {
      if (op[pc] === CHAR && sets[arg[pc]!]![symbol] === 1) targets.push(out[pc]!);
    }
    const next = this.state(this.closure(targets, false), false);
    if (next >= 0) this.table[from * SYMBOLS + symbol] = next;
    return next;
  }

  private grow(): void {
    const flags = new Uint8Array(this.flags.length * 2);
    flags.set(this.flags);
    this.flags = flags;
    const table = new Int16Array(flags.length * SYMBOLS).fill(-1);
    table.set(this.table);
    this.table = table;
  }
}
