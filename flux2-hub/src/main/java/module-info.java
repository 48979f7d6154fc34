/**
 * Models by name: Hugging Face repository ids resolved through the shared hub cache (the layout {@code
 * huggingface_hub} uses), fetched over the JDK's HTTP client and verified on first use.
 */
module dev.flux2.hub {
    requires transitive dev.flux2.core;
    requires java.net.http;
    requires com.fasterxml.jackson.databind;
    requires org.apache.commons.codec;
    requires org.slf4j;

    exports dev.flux2.hub;

    provides dev.flux2.spi.ModelResolver with
            dev.flux2.hub.HubModelResolver;
}
