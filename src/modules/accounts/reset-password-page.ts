import { createHash } from 'node:crypto';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './accounts.types';

/**
 * The page the reset e-mail links to (`GET /auth/reset-password?token=…`): a form that posts the token from its own
 * URL and the new password as JSON to `POST /auth/reset-password`. Everything is inline and static; the token is read
 * by the script, never written into the markup.
 */
const SCRIPT = `
const form = document.getElementById('reset');
const status = document.getElementById('status');
const token = new URLSearchParams(location.search).get('token') ?? '';
if (token === '') {
  status.textContent = 'This link has no reset token: open the link from the e-mail again.';
  form.hidden = true;
}
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = form.elements.new_password.value;
  if (password !== form.elements.repeat.value) {
    status.textContent = 'The two passwords differ.';
    return;
  }
  form.elements.submit.disabled = true;
  status.textContent = 'Setting the new password…';
  try {
    const response = await fetch(location.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, new_password: password }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.ok) {
      form.hidden = true;
      status.textContent = 'Your password is set. Every session was signed out: log in with the new password.';
      return;
    }
    const problems = (body.error?.details ?? []).map((d) => d.problem).join('; ');
    status.textContent = (body.error?.message ?? 'The password was not set.') + (problems ? ' ' + problems : '');
  } catch {
    status.textContent = 'The appliance could not be reached: try again.';
  }
  form.elements.submit.disabled = false;
});
`;

/** Only this page's own script runs, it may call only its own origin, and nothing is loaded from anywhere. */
export const RESET_PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; " +
  `script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'; connect-src 'self'; ` +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export const RESET_PASSWORD_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Choose a new password</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1d2433; }
label { display: block; margin-top: 1rem; }
input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
button { margin-top: 1.25rem; padding: .5rem 1.25rem; font: inherit; }
#status { margin-top: 1.25rem; }
</style>
</head>
<body>
<h1>Choose a new password</h1>
<form id="reset">
<label>New password (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters)
<input type="password" name="new_password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}"></label>
<label>The same password again
<input type="password" name="repeat" autocomplete="new-password" required></label>
<button type="submit" name="submit">Set the password</button>
</form>
<p id="status" role="status"></p>
<script>${SCRIPT}</script>
</body>
</html>
`;
