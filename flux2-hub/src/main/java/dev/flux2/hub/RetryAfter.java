package dev.flux2.hub;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The {@code Retry-After} header of a 429 or 503 answer (RFC 9110 §10.2.3): delay-seconds or an HTTP date. A rate
 * limit that asks for 4 s must be waited for 4 s, not retried after the usual 0.5 s back-off and given up.
 */
final class RetryAfter {
    private RetryAfter() {}

    /**
     * @param headers an answer's headers
     * @param now the current time (for the HTTP-date form)
     * @return the wait the server asks for (zero for a date in the past), or empty when absent or unreadable
     */
    static Optional<Duration> of(HttpHeaders headers, Instant now) {
        return headers.firstValue("Retry-After").flatMap(v -> parse(v, now));
    }

    /**
     * @param value the header value
     * @param now the current time
     * @return the wait, or empty when the value is neither form
     */
    static Optional<Duration> parse(String value, Instant now) {
        String v = value.strip();
        if (!v.isEmpty() && v.length() <= 12 && v.chars().allMatch(Character::isDigit)) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
        }
        try {
            Instant at =
                    ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(now, at);
            return Optional.of(d.isNegative() ? Duration.ZERO : d);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
