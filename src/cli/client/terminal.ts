/** Interactive niceties (prompts, colour, spinners) only for a person at a terminal who has not opted out. */
export function promptsAllowed(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}
