import { FastifyInstance, RouteOptions } from 'fastify';
import { AppError } from '../errors';

function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+(?:\([^)]*\))?\??|\*)/)
    .map((part, i) =>
      i % 2 === 0 ? part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : part === '*' ? '.*' : '[^/]+',
    )
    .join('');
  return new RegExp(`^${source}$`);
}

/** Routes are read from Fastify's table as they are registered; call before app.init(). */
export function installMethodNotAllowed(fastify: FastifyInstance): void {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    routes.set(route.url, entry);
  });
  fastify.addHook('onRequest', (request, reply, done) => {
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
