import { FastifyInstance, RouteOptions } from 'fastify';
import { AppError } from '../errors';

/** A route pattern as a test on a path: `:param` (and its `(regex)`) one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+(?:\([^)]*\))?\??|\*)/)
    .map((part, i) =>
      i % 2 === 0 ? part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : part === '*' ? '.*' : '[^/]+',
    )
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * Answers 405 `method_not_allowed` with an `Allow` header, instead of 404, for a path some route serves with other
 * methods. The routes are read from Fastify's own table as they are registered (`onRoute`); call before app.init().
 */
export function installMethodNotAllowed(fastify: FastifyInstance): void {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    routes.set(route.url, entry);
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    // Only a request no route matched (it would answer 404).
    if (request.routeOptions.url !== undefined) return done();
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) methods.forEach((method) => allowed.add(method));
    }
    if (allowed.size === 0) return done();
    const allow = [...allowed].sort().join(', ');
    done(
      new AppError(
        'method_not_allowed',
        `${request.method} is not allowed on ${path}: use ${allow}.`,
        undefined,
        { allow },
      ),
    );
  });
}
