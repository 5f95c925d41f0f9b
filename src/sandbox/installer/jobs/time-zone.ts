/**
 * §2.4 "IANA zone name; validated": a name of the IANA form (`Area/Location`, or `UTC`) that the runtime's time-zone
 * database knows. Offsets such as `+02:00` are not zone names and are refused.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(name) || /^[+-]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
