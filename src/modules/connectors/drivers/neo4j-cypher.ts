/**
 * Read-only check of a Cypher query before sending; it also runs in a READ session, which does not stop a procedure
 * that reads a URL or file (`apoc.load.json`), so procedures are judged by name, tokenised as the server does.
 */

type TokenKind = 'word' | 'quoted' | 'string' | 'parameter' | 'number' | 'symbol';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

/** Cypher ends a `//` comment at any line break, `\r` alone included. */
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;
const WORD_START = /[\p{L}_]/u;
const WORD_PART = /[\p{L}\p{N}_$]/u;
const BLANK = /[\s\u00a0\ufeff]/u;

export function cypherTokens(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const char = query[i];
    const next = query[i + 1];
    if (BLANK.test(char)) {
      i += 1;
    } else if (char === '/' && next === '/') {
      i += 2;
      while (i < query.length && !LINE_BREAK.test(query[i])) i += 1;
    } else if (char === '/' && next === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end < 0 ? query.length : end + 2;
    } else if (char === "'" || char === '"') {
      let j = i + 1;
      while (j < query.length && query[j] !== char) j += query[j] === '\\' ? 2 : 1;
      tokens.push({ kind: 'string', text: '' });
      i = j + 1;
    } else if (char === '`') {
      let name = '';
      let j = i + 1;
      for (; j < query.length; j += 1) {
        if (query[j] === '`' && query[j + 1] !== '`') break;
        // `a``b` is one name with a backtick in it.
        if (query[j] === '`') j += 1;
        name += query[j];
      }
      tokens.push({ kind: 'quoted', text: name });
      i = j + 1;
    } else if (char === '$') {
      let j = i + 1;
      while (j < query.length && WORD_PART.test(query[j])) j += 1;
      tokens.push({ kind: 'parameter', text: query.slice(i, j) });
      i = j;
    } else if (/\p{N}/u.test(char)) {
      let j = i + 1;
      while (j < query.length && WORD_PART.test(query[j])) j += 1;
      tokens.push({ kind: 'number', text: query.slice(i, j) });
      i = j;
    } else if (WORD_START.test(char)) {
      let j = i + 1;
      while (j < query.length && WORD_PART.test(query[j])) j += 1;
      tokens.push({ kind: 'word', text: query.slice(i, j) });
      i = j;
    } else {
      tokens.push({ kind: 'symbol', text: char });
      i += 1;
    }
  }
  return tokens;
}

/** Clauses that write data or schema, administer the server, or make the server read files and URLs. */
const WRITE_CLAUSES: readonly [readonly string[], string][] = [
  [['CREATE'], 'CREATE'],
  [['MERGE'], 'MERGE'],
  [['DELETE'], 'DELETE'],
  [['DETACH'], 'DETACH DELETE'],
  [['SET'], 'SET'],
  [['REMOVE'], 'REMOVE'],
  [['DROP'], 'DROP'],
  [['FOREACH'], 'FOREACH'],
  [['LOAD', 'CSV'], 'LOAD CSV'],
  [['TRANSACTIONS'], 'CALL ... IN TRANSACTIONS'],
  ...['ALTER', 'GRANT', 'DENY', 'REVOKE', 'RENAME', 'ENABLE', 'DEALLOCATE', 'REALLOCATE', 'TERMINATE'].map(
    (word): [string[], string] => [[word], 'an administration command'],
  ),
  [['START', 'DATABASE'], 'an administration command'],
  [['STOP', 'DATABASE'], 'an administration command'],
  [['USE'], 'USE (the connector reads its configured database only)'],
];

/** Procedures a query may CALL; anything else (`apoc.load.*`, `dbms.*`) is refused, as READ mode would let it run. */
const READ_PROCEDURES = new Set(
  [
    'db.labels',
    'db.relationshipTypes',
    'db.propertyKeys',
    'db.info',
    'db.ping',
    'db.schema.visualization',
    'db.schema.nodeTypeProperties',
    'db.schema.relTypeProperties',
    'db.index.fulltext.queryNodes',
    'db.index.fulltext.queryRelationships',
    'db.index.fulltext.listAvailableAnalyzers',
    'db.index.vector.queryNodes',
    'db.index.vector.queryRelationships',
    'dbms.components',
    'apoc.help',
    'apoc.meta.data',
    'apoc.meta.schema',
    'apoc.meta.stats',
    'apoc.meta.graph',
    'apoc.meta.nodeTypeProperties',
    'apoc.meta.relTypeProperties',
    'apoc.path.expand',
    'apoc.path.expandConfig',
    'apoc.path.subgraphNodes',
    'apoc.path.subgraphAll',
    'apoc.path.spanningTree',
    'apoc.neighbors.tohop',
    'apoc.neighbors.byhop',
    'apoc.algo.dijkstra',
    'apoc.algo.aStar',
    'apoc.algo.allSimplePaths',
    'gds.version',
    'gds.graph.list',
  ].map((name) => name.toLowerCase()),
);
const GDS_READ_MODE = /^gds\.[\w.]+\.(?:stream|stats)$/i;

/** Function namespaces that run Cypher given as text, reach files or URLs, or read the server's configuration. */
const REFUSED_FUNCTIONS = /^apoc\.(?:cypher|load|import|export|static|config|systemdb|custom|trigger)\./i;

const isNamePart = (token: Token | undefined): boolean =>
  token !== undefined && (token.kind === 'word' || token.kind === 'quoted');

function dottedName(tokens: readonly Token[], start: number): { name: string; end: number } {
  const parts: string[] = [];
  let i = start;
  while (isNamePart(tokens[i])) {
    const token = tokens[i];
    parts.push(token.text);
    if (tokens[i + 1]?.text !== '.' || !isNamePart(tokens[i + 2]))
      return { name: parts.join('.'), end: i + 1 };
    i += 2;
  }
  return { name: parts.join('.'), end: i };
}

function isNameUse(tokens: readonly Token[], index: number): boolean {
  const before = tokens[index - 1]?.text;
  return before === '.' || before === ':' || tokens[index + 1]?.text === ':';
}

function clauseAt(tokens: readonly Token[], index: number, words: readonly string[]): boolean {
  return words.every((word, offset) => {
    const token = tokens[index + offset];
    return token?.kind === 'word' && token.text.toUpperCase() === word && !isNameUse(tokens, index + offset);
  });
}

function procedureProblem(tokens: readonly Token[], callAt: number): string | undefined {
  if (tokens[callAt + 1]?.text === '{') return undefined;
  const { name } = dottedName(tokens, callAt + 1);
  if (name === '') return 'CALL must name a procedure or open a subquery';
  return READ_PROCEDURES.has(name.toLowerCase()) || GDS_READ_MODE.test(name)
    ? undefined
    : `it calls the procedure ${name}, which is not a known read (see docs/connectors.md)`;
}

/** Why a query is not read-only; conservative: a keyword is a name only after `.`/`:` or before `:`. */
export function cypherWriteReason(query: string): string | undefined {
  const tokens = cypherTokens(query);
  if (tokens.length === 0) return 'the query is empty';
  if (tokens.some((token) => token.kind === 'symbol' && token.text === ';')) {
    return 'only one statement is allowed (no ";")';
  }
  for (const [words, clause] of WRITE_CLAUSES) {
    if (tokens.some((_, index) => clauseAt(tokens, index, words))) return `it contains ${clause}`;
  }
  for (let index = 0; index < tokens.length; index += 1) {
    if (clauseAt(tokens, index, ['CALL'])) {
      const problem = procedureProblem(tokens, index);
      if (problem !== undefined) return problem;
    }
    const afterCall = index > 0 && clauseAt(tokens, index - 1, ['CALL']);
    if (isNamePart(tokens[index]) && tokens[index - 1]?.text !== '.' && !afterCall) {
      const { name, end } = dottedName(tokens, index);
      if (tokens[end]?.text === '(' && name.includes('.') && REFUSED_FUNCTIONS.test(name)) {
        return `it calls the function ${name}`;
      }
    }
  }
  return undefined;
}
