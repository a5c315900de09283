export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  /** Plain text; the message goes out as text/plain (7bit when ASCII, otherwise quoted-printable). */
  readonly text: string;
}

export interface ComposedMail {
  readonly from: string;
  readonly to: string;
  readonly messageId: string;
  readonly source: string;
}

/** MailModule picks one at boot. */
export interface MailTransport {
  deliver(mail: ComposedMail): Promise<void>;
}

export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
