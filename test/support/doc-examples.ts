import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reads the `doc-example` and `doc-fragment` markers of docs/*.md; test/e2e/docs-examples.e2e.spec.ts says what they mean. */

export const DOCS = join(__dirname, '..', '..', 'docs');

export const SETUPS = [
  'connector',
  'dataset',
  'orders',
  'license',
  'trigger',
  'fire',
  'outcomes',
  'execution',
] as const;
export type Setup = (typeof SETUPS)[number];

export type Exchange =
  | { readonly kind: 'http'; readonly method: string; readonly path: string; readonly body: unknown }
  | { readonly kind: 'mcp'; readonly tool: string; readonly args: unknown }
  | { readonly kind: 'delivery'; readonly event: string };

export interface DocExample {
  readonly where: string;
  readonly setup: readonly Setup[];
  readonly exchange: Exchange;
  /** An HTTP status, `result` or `error` for an MCP tool, `delivered` for a webhook. */
  readonly status: string;
  readonly checked: readonly string[];
  readonly answer: Record<string, unknown>;
}

const MARKER = /<!-- doc-example ([\w-]+): (request|response|delivery|setup) ([^>]*?) -->/;
const FRAGMENT = '<!-- doc-fragment -->';
/** A marker and the fenced JSON block under it, if any (a GET has none); blocks may be indented in a list. */
const MARKED_BLOCK = new RegExp(`${MARKER.source}(?:\\s*\`\`\`json\\n([\\s\\S]*?)\\n\\s*\`\`\`)?`, 'g');
const JSON_FENCE = /^[ \t]*```json[ \t]*$/gm;

const docFiles = (): string[] => readdirSync(DOCS).filter((f) => f.endsWith('.md'));

interface Parts {
  setup?: Setup[];
  exchange?: Exchange;
  answer?: { status: string; checked: string[]; body: Record<string, unknown> };
}

function checkedFields(words: string[]): string[] {
  return words[1] === 'check' ? words.slice(2) : [];
}

function addMarker(parts: Parts, file: string, name: string, kind: string, words: string[], body?: string) {
  const json = body === undefined ? undefined : (JSON.parse(body) as Record<string, unknown>);
  if (kind === 'setup') {
    const unknown = words.filter((w) => !(SETUPS as readonly string[]).includes(w));
    if (unknown.length > 0)
      throw new Error(`docs/${file}: doc-example ${name} sets up ${unknown.join(', ')}`);
    parts.setup = words as Setup[];
  } else if (kind === 'request') {
    parts.exchange =
      words[0] === 'MCP'
        ? { kind: 'mcp', tool: words[1], args: json ?? {} }
        : { kind: 'http', method: words[0], path: words[1], body: json };
  } else {
    if (json === undefined)
      throw new Error(`docs/${file}: doc-example ${name} has no JSON block under its ${kind}`);
    if (kind === 'delivery') parts.exchange = { kind: 'delivery', event: words[0] };
    const status = kind === 'delivery' ? 'delivered' : words[0];
    parts.answer = { status, checked: checkedFields(words), body: json };
  }
}

export function readDocExamples(): DocExample[] {
  const examples: DocExample[] = [];
  for (const file of docFiles()) {
    const byName = new Map<string, Parts>();
    for (const [, name, kind, spec, body] of readFileSync(join(DOCS, file), 'utf8').matchAll(MARKED_BLOCK)) {
      const parts = byName.get(name) ?? {};
      addMarker(parts, file, name, kind, spec.trim().split(/\s+/), body);
      byName.set(name, parts);
    }
    for (const [name, { setup, exchange, answer }] of byName) {
      if (!exchange || !answer)
        throw new Error(`docs/${file}: doc-example ${name} lacks its request or answer`);
      const { status, checked, body } = answer;
      examples.push({
        where: `docs/${file} ${name}`,
        setup: setup ?? [],
        exchange,
        status,
        checked,
        answer: body,
      });
    }
  }
  return examples;
}

/** `docs/FILE:LINE` of every ```json block whose nearest non-blank line above is no request, answer or fragment marker. */
export function unmarkedJsonBlocks(): string[] {
  const unmarked: string[] = [];
  for (const file of docFiles()) {
    const text = readFileSync(join(DOCS, file), 'utf8');
    for (const fence of text.matchAll(JSON_FENCE)) {
      const above = (text.slice(0, fence.index).trimEnd().split('\n').pop() ?? '').trim();
      const marker = MARKER.exec(above);
      if (!(marker && marker[2] !== 'setup') && above !== FRAGMENT) {
        unmarked.push(`docs/${file}:${text.slice(0, fence.index).split('\n').length}`);
      }
    }
  }
  return unmarked;
}
