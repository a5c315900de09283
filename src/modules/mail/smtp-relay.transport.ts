import type { Socket } from 'node:net';
import { EgressGuard } from '../egress/egress.types';
import { ComposedMail, MailTransport } from './mail.types';

export interface SmtpRelayTarget {
  readonly host: string;
  readonly port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the relay offers it. */
  readonly secure: boolean;
  readonly user?: string;
  readonly password?: string;
}

/** Reads SERVICE_SMTP_URL (`smtp://user:pass@relay:587`, `smtps://relay:465`); the config already checked the scheme. */
export function parseSmtpUrl(url: string): SmtpRelayTarget {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? (secure ? 465 : 587) : Number(parsed.port),
    secure,
    user: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
  };
}

const TIMEOUT_MS = 30_000;

export class SmtpRelayTransport implements MailTransport {
  constructor(
    private readonly target: SmtpRelayTarget,
    private readonly egress: EgressGuard,
  ) {}

  async deliver(mail: ComposedMail): Promise<void> {
    const { host, port, secure, user, password } = this.target;
    // Loaded on first use: most appliances have no relay, and start-up should not pay for one.
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({
      host,
      port,
      secure,
      auth: user === undefined ? undefined : { user, pass: password ?? '' },
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
      tls: { servername: isIpLiteral(host) ? undefined : host },
      getSocket: (_options, callback) => {
        this.egress.openSocket(host, port, { purpose: 'mail' }).then(
          (socket: Socket) => callback(null, { connection: socket }),
          (error: Error) => callback(error, undefined),
        );
      },
    });
    try {
      await transport.sendMail({ envelope: { from: mail.from, to: mail.to }, raw: mail.source });
    } finally {
      transport.close();
    }
  }
}

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':') || host.startsWith('[');
}
