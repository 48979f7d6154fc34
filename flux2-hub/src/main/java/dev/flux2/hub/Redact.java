package dev.flux2.hub;

import java.net.URI;
import java.util.regex.Pattern;

/**
 * What of a URL may be shown in messages, logs and progress lines: never the userinfo ({@code user:password@} of an
 * {@code HF_ENDPOINT}), and never a query other than the hub's own {@code blobs=true} (a CDN's signed URL carries
 * its signature there).
 */
final class Redact {
    private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/?#\\s]*@");

    private Redact() {}

    /**
     * @param url a URL
     * @return it without userinfo, and with any query but {@code blobs=true} replaced by {@code ?…}
     */
    static String url(URI url) {
        URI u = withoutUserInfo(url);
        String s = u.toString();
        String query = u.getRawQuery();
        if (query != null && !query.equals("blobs=true")) {
            s = s.substring(0, s.indexOf('?')) + "?…";
        }
        return s;
    }

    /**
     * @param url a URL
     * @return the same URL without its userinfo
     */
    static URI withoutUserInfo(URI url) {
        if (url.getRawUserInfo() == null) {
            return url;
        }
        // On the raw form, so that the path's and query's percent-encoding stay exactly as they were.
        return URI.create(USER_INFO.matcher(url.toString()).replaceFirst(""));
    }

    /**
     * @param text any text that may hold a URL
     * @return it with every {@code //user:password@} replaced by {@code //***@}
     */
    static String text(String text) {
        return USER_INFO.matcher(text).replaceAll("***@");
    }
}
