package dev.flux2.server;

import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/** The request's media type, without parameters and lower-cased ({@code ""} when absent). */
final class MediaTypes {
    static final String JSON = "application/json";
    static final String MULTIPART = "multipart/form-data";

    private MediaTypes() {}

    static String of(Request request) {
        String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        if (type == null) {
            return "";
        }
        int semi = type.indexOf(';');
        return (semi < 0 ? type : type.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
    }
}
