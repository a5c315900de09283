import { cypherWriteReason } from '../../../src/modules/connectors/drivers/neo4j-cypher';

describe('read-only check of Cypher', () => {
  it.each([
    ['CREATE (n:X)', 'it contains CREATE'],
    ['MATCH (n) DETACH DELETE n', 'it contains DELETE'],
    ['merge (n:X {id: 1}) return n', 'it contains MERGE'],
    ['MATCH (n) REMOVE n.x', 'it contains REMOVE'],
    ["LOAD CSV FROM 'http://x/a.csv' AS row RETURN row", 'it contains LOAD CSV'],
    ['MATCH (n) CALL { WITH n RETURN n } IN TRANSACTIONS RETURN n', 'it contains CALL ... IN TRANSACTIONS'],
    [
      'MATCH (n) CALL { WITH n RETURN n } IN 10 CONCURRENT TRANSACTIONS RETURN n',
      'it contains CALL ... IN TRANSACTIONS',
    ],
    ['USE other MATCH (n) RETURN n', 'it contains USE (the connector reads its configured database only)'],
    ['MATCH (n) RETURN n; MATCH (m) RETURN m', 'only one statement is allowed (no ";")'],
    ['  // nothing\n', 'the query is empty'],
    // A `//` comment ends at \r too: the SET after it is code.
    ['MATCH (n) // c\rSET n.x = 1 RETURN n', 'it contains SET'],
    ['MATCH (n) // c\u2028SET n.x = 1 RETURN n', 'it contains SET'],
  ])('refuses %j', (query, reason) => {
    expect(cypherWriteReason(query)).toBe(reason);
  });

  it.each([
    ['CALL dbms.killQuery("q")', 'dbms.killQuery'],
    ["CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})", 'apoc.periodic.iterate'],
    ["CALL `apoc`.`load`.`json`('http://169.254.169.254/latest/meta-data/')", 'apoc.load.json'],
    ["CALL `apoc.load.json`('http://169.254.169.254/')", 'apoc.load.json'],
    ["CALL `dbms`.`security`.`createUser`('eve', 'x', false)", 'dbms.security.createUser'],
    ["CALL apoc. load. json('http://169.254.169.254/')", 'apoc.load.json'],
    ["CALL apoc /* x */ . load\t.\njson('file:///etc/passwd')", 'apoc.load.json'],
    ["RETURN 1 AS x // c\rCALL apoc.load.json('http://169.254.169.254/')", 'apoc.load.json'],
    ['CALL apoc.load.json', 'apoc.load.json'],
    ["call APOC.LOAD.JSON('http://169.254.169.254/')", 'APOC.LOAD.JSON'],
    ['CALL custom.rewire()', 'custom.rewire'],
    [
      "MATCH (n) CALL { CALL apoc.load.json('http://x/') YIELD value RETURN value } RETURN n",
      'apoc.load.json',
    ],
  ])('refuses the procedure in %j', (query, name) => {
    expect(cypherWriteReason(query)).toBe(
      `it calls the procedure ${name}, which is not a known read (see docs/connectors.md)`,
    );
  });

  it.each([
    [
      "RETURN apoc.cypher.runFirstColumnSingle('CALL apoc.load.json($u)', {u: 'http://x/'})",
      'apoc.cypher.runFirstColumnSingle',
    ],
    [
      "RETURN `apoc`.`cypher` . `runFirstColumnMany`('MATCH (n) RETURN n', {})",
      'apoc.cypher.runFirstColumnMany',
    ],
  ])('refuses the function in %j', (query, name) => {
    expect(cypherWriteReason(query)).toBe(`it calls the function ${name}`);
  });

  it.each([
    'MATCH (n:Customer) RETURN n.name',
    "MATCH (n) WHERE n.note = 'CREATE; DELETE' RETURN n",
    'MATCH (n) WHERE n.set = 1 AND n.`create` = 2 RETURN n // DELETE all',
    'MATCH (n:Set)-[:MERGE]->(m) RETURN n {create: 1, .name}, $delete',
    'MATCH (n) /* SET n.x = 1 */ RETURN count(n) AS `DELETE`',
    "MATCH (n) WHERE n.note = 'CALL apoc.load.json(1)' RETURN n",
    'CALL db.labels() YIELD label RETURN label',
    'CALL `db`.`labels`() YIELD label RETURN label',
    'CALL db.schema.visualization()',
    'CALL apoc.meta.stats() YIELD labels RETURN labels',
    'CALL gds.pageRank.stream($graph) YIELD nodeId, score RETURN nodeId, score',
    'CALL { MATCH (n) RETURN n } RETURN count(n)',
    'MATCH p = (a)-[*1..3]->(b) RETURN date.truncate("month", a.at), apoc.coll.sum([1, 2]), length(p)',
  ])('lets %j through', (query) => {
    expect(cypherWriteReason(query)).toBeUndefined();
  });
});
