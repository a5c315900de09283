/**
 * Judged on DuckDB's own parse tree, so no spelling, comment or quoting can hide a name. The instance's lock-down
 * refuses files, network, extensions and settings; this keeps a report from reading the instance itself.
 */

/** Table functions a report may select from: they compute rows and read nothing. */
const TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest', 'json_each', 'json_tree']);

/** Scalar functions that show the instance or act on it rather than compute on values. */
const REFUSED_FUNCTIONS = new Set([
  'current_setting',
  'getvariable',
  'write_log',
  'json_serialize_sql',
  'json_deserialize_sql',
  'current_query',
  'stats',
]);

const TABLE_REF_TYPES = new Set([
  'BASE_TABLE',
  'JOIN',
  'SUBQUERY',
  'TABLE_FUNCTION',
  'EXPRESSION_LIST',
  'EMPTY',
  'PIVOT',
]);

export type StatementVerdict =
  | { readonly kind: 'not_allowed'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly message: string };

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Every CTE name the statement defines, anywhere in it (a reference to one is a reference to a table it built). */
function cteNames(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) cteNames(item, into);
  } else if (isNode(node)) {
    const map = node.cte_map;
    if (isNode(map) && Array.isArray(map.map)) {
      for (const entry of map.map) if (isNode(entry)) into.add(text(entry.key).toLowerCase());
    }
    for (const value of Object.values(node)) cteNames(value, into);
  }
  return into;
}

export function statementProblem(ast: unknown, tables: readonly string[]): StatementVerdict | undefined {
  if (!isNode(ast)) return { kind: 'invalid', message: 'the statement could not be read' };
  if (ast.error === true) {
    const message = text(ast.error_message);
    if (/only select statements/i.test(message)) {
      return { kind: 'not_allowed', reason: 'only a SELECT statement is allowed' };
    }
    if (/expression depth/i.test(message)) {
      return { kind: 'invalid', message: 'the statement nests expressions too deeply' };
    }
    return { kind: 'invalid', message };
  }
  const known = cteNames(ast, new Set(tables.map((t) => t.toLowerCase())));
  const problems: string[] = [];
  const visit = (node: unknown): void => {
    if (problems.length > 0) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isNode(node)) return;
    const problem = nodeProblem(node, known);
    if (problem !== undefined) {
      problems.push(problem);
      return;
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(ast.statements);
  return problems.length > 0 ? { kind: 'not_allowed', reason: problems[0] } : undefined;
}

function nodeProblem(node: Node, known: ReadonlySet<string>): string | undefined {
  if (node.class === 'FUNCTION') {
    const name = text(node.function_name).toLowerCase();
    if (text(node.schema) !== '' || text(node.catalog) !== '') {
      return `functions may not be qualified with a schema or catalog (${name})`;
    }
    if (REFUSED_FUNCTIONS.has(name) || name.startsWith('duckdb_') || name.startsWith('pragma_')) {
      return `the function ${name} is not allowed`;
    }
    return undefined;
  }
  const type = text(node.type);
  if (type === 'BASE_TABLE') {
    const name = text(node.table_name);
    if (text(node.schema_name) !== '' || text(node.catalog_name) !== '') {
      return `tables may not be qualified with a schema or catalog (${name}): use the dataset's name`;
    }
    if (!known.has(name.toLowerCase())) {
      return `the table ${name} is not one of this report's datasets (${[...known].join(', ')})`;
    }
    return undefined;
  }
  if (type === 'TABLE_FUNCTION') {
    const call = node.function;
    const name = isNode(call) ? text(call.function_name).toLowerCase() : '';
    if (!TABLE_FUNCTIONS.has(name)) {
      return `the table function ${name} is not allowed (only ${[...TABLE_FUNCTIONS].join(', ')})`;
    }
    return undefined;
  }
  if (type === 'SHOW_REF') return 'DESCRIBE, SHOW and SUMMARIZE are not allowed';
  // Every table reference carries column aliases; expressions never do.
  if ('column_name_alias' in node && !TABLE_REF_TYPES.has(type)) {
    return `the table reference ${type} is not allowed`;
  }
  return undefined;
}
