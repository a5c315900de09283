/**
 * The read-only check of a Cypher query, made before anything is sent. It is the first of two lines: the query
 * also runs in a READ access-mode session, where the server refuses writes (writing procedures included).
 */

/** Clauses that write data or schema, administer the server, or make the server read files and URLs. */
const WRITE_CLAUSES: readonly [RegExp, string][] = [
  [/\bCREATE\b/, 'CREATE'],
  [/\bMERGE\b/, 'MERGE'],
  [/\bDELETE\b/, 'DELETE'],
  [/\bDETACH\b/, 'DETACH DELETE'],
  [/\bSET\b/, 'SET'],
  [/\bREMOVE\b/, 'REMOVE'],
  [/\bDROP\b/, 'DROP'],
  [/\bFOREACH\b/, 'FOREACH'],
  [/\bLOAD\s+CSV\b/, 'LOAD CSV'],
  [/\bIN\s+(?:\d+\s+CONCURRENT\s+)?TRANSACTIONS\b/, 'CALL ... IN TRANSACTIONS'],
  [
    /\b(?:ALTER|GRANT|DENY|REVOKE|RENAME|ENABLE|DEALLOCATE|REALLOCATE|TERMINATE)\b/,
    'an administration command',
  ],
  [/\b(?:START|STOP)\s+DATABASE\b/, 'an administration command'],
  [/\bUSE\b/, 'USE (the connector reads its configured database only)'],
];

/**
 * Procedure namespaces that write, load from files or URLs, or run Cypher given as text (which this check could
 * not see). Other procedures run: the READ session makes the server refuse a writing one.
 */
const REFUSED_PROCEDURES =
  /^(?:dbms\.|db\.(?:create|drop|clearQueryCaches|index\.fulltext\.(?:create|drop))|apoc\.(?:load|import|export|periodic|cypher|trigger|create|merge|refactor|atomic|lock|schema|systemdb|custom|do|when|case|nodes\.(?:delete|link)|graph\.fromCypher)|gds\.(?:graph\.(?:drop|write|export)|[\w.]*\.(?:write|mutate)\b))/i;

/** The query with string literals, comments and `quoted` names blanked, so keywords inside them do not count. */
function cypherCode(query: string): string {
  let out = '';
  for (let i = 0; i < query.length;) {
    const char = query[i];
    const next = query[i + 1];
    if (char === '/' && next === '/') {
      const end = query.indexOf('\n', i);
      i = end < 0 ? query.length : end;
      out += ' ';
    } else if (char === '/' && next === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end < 0 ? query.length : end + 2;
      out += ' ';
    } else if (char === "'" || char === '"' || char === '`') {
      let j = i + 1;
      while (j < query.length && query[j] !== char) j += char !== '`' && query[j] === '\\' ? 2 : 1;
      // `a``b` is one name with a backtick in it: the doubled quote continues it.
      i = j + 1;
      out += char === '`' ? '_name_' : "''";
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/**
 * Why a query is not read-only, or undefined when it is. Conservative: a keyword used as a map key or property
 * name must be quoted with backticks (`` n.`set` ``); a property access (`n.set`), a parameter (`$set`) and a label
 * (`:Set`) are not taken for a clause.
 */
export function cypherWriteReason(query: string): string | undefined {
  const code = cypherCode(query)
    .toUpperCase()
    // n.set, $set, :Set and {set: 1} are names, not clauses.
    .replace(/[.$:]\s*[A-Z_][A-Z0-9_]*/g, ' _name_')
    .replace(/[A-Z_][A-Z0-9_]*(?=\s*:)/g, '_name_');
  if (code.trim() === '') return 'the query is empty';
  if (code.includes(';')) return 'only one statement is allowed (no ";")';
  for (const [pattern, clause] of WRITE_CLAUSES) {
    if (pattern.test(code)) return `it contains ${clause}`;
  }
  for (const match of cypherCode(query).matchAll(/\bCALL\s+([A-Za-z_][\w.]*)\s*\(/gi)) {
    if (REFUSED_PROCEDURES.test(match[1])) return `it calls the procedure ${match[1]}`;
  }
  return undefined;
}
