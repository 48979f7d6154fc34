/**
 * The server's reliability suite: {@link dev.flux2.server.reliability.ServiceAbuseTest} (slow and abusive clients,
 * issue #11) and {@link dev.flux2.server.reliability.ServerGuardTest} (issue #24: cross-site content types, DNS
 * rebinding, dripped headers, invalid UTF-8, a non-loopback bind without a key).
 */
package dev.flux2.server.reliability;
