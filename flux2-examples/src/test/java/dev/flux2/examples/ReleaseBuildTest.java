package dev.flux2.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Issue #33, "release-ready build": the always-on part of the release check (the full one, a deploy to a file
 * repository and an application built against it, is {@code release/check.sh}). Reads the reactor's own pom files:
 * the metadata Maven Central requires is complete, every published module is described and listed in
 * {@code flux2-bom} (and nothing else is), the release profile is off by default and signs and publishes, and the
 * sources and javadoc jars and reproducible timestamps are configured. The unpublished modules are those that set
 * {@code maven.deploy.skip}.
 */
class ReleaseBuildTest {
    private static Path root;
    private static Element rootPom;
    private static Element bom;

    @BeforeAll
    static void readPoms() throws Exception {
        root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        rootPom = read(root.resolve("pom.xml"));
        bom = read(root.resolve("flux2-bom/pom.xml"));
    }

    @Test
    void theBomCarriesTheMetadataCentralRequires() {
        assertFalse(text(bom, "url").isBlank(), "url");
        for (Element license : children(child(bom, "licenses"), "license")) {
            assertFalse(text(license, "name").isBlank(), "license name");
            assertTrue(text(license, "url").startsWith("https://"), "license url");
        }
        assertFalse(children(child(bom, "licenses"), "license").isEmpty(), "licenses");
        List<Element> developers = children(child(bom, "developers"), "developer");
        assertFalse(developers.isEmpty(), "developers");
        developers.forEach(d -> assertFalse(text(d, "name").isBlank(), "developer name"));
        Element scm = child(bom, "scm");
        for (String field : List.of("connection", "developerConnection", "url")) {
            assertFalse(text(scm, field).isBlank(), "scm " + field);
        }
        assertTrue(text(scm, "connection").startsWith("scm:git:"), text(scm, "connection"));
        // Children keep the project's address instead of appending their artifact id to it.
        assertEquals("false", bom.getAttribute("child.project.url.inherit.append.path"));
        assertEquals("false", scm.getAttribute("child.scm.url.inherit.append.path"));
    }

    @Test
    void everyModuleIsDescribedAndTheBomListsExactlyThePublishedOnes() throws Exception {
        Set<String> published = new TreeSet<>();
        for (String module : texts(child(rootPom, "modules"), "module")) {
            Element pom = read(root.resolve(module).resolve("pom.xml"));
            String artifactId = text(pom, "artifactId");
            assertEquals(module, artifactId, "module folder and artifact id");
            // The description is inherited when a module has none: each must declare its own.
            assertTrue(text(pom, "description").length() > 20, artifactId + " has no description of its own");
            assertFalse(text(pom, "name").isBlank(), artifactId + " has no name");
            boolean skipped = "true".equals(text(child(pom, "properties"), "maven.deploy.skip"));
            if (!skipped && !module.equals("flux2-bom")) {
                published.add(artifactId);
                String packaging = text(pom, "packaging");
                assertTrue(packaging.isEmpty() || packaging.equals("jar"), artifactId + " packaging " + packaging);
            }
        }
        Set<String> listed = new TreeSet<>();
        for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            assertEquals("dev.flux2", text(dependency, "groupId"));
            assertEquals("${project.version}", text(dependency, "version"));
            listed.add(text(dependency, "artifactId"));
        }
        assertEquals(published, listed, "flux2-bom lists every published module and only those");
        assertTrue(published.containsAll(Set.of("flux2-core", "flux2-onnx", "flux2-langchain4j")), published::toString);
    }

    @Test
    void theVersionsAgreeAlongTheInheritance() throws Exception {
        String version = text(bom, "version");
        Element parent = child(rootPom, "parent");
        assertEquals("flux2-bom", text(parent, "artifactId"));
        assertEquals(version, text(parent, "version"));
        assertEquals(version, text(rootPom, "version"));
        for (String module : texts(child(rootPom, "modules"), "module")) {
            if (!module.equals("flux2-bom")) {
                Element modulePom = read(root.resolve(module).resolve("pom.xml"));
                assertEquals(version, text(child(modulePom, "parent"), "version"), module);
            }
        }
    }

    @Test
    void theReleaseProfileIsOffByDefaultAndSignsAndPublishes() {
        Element release = null;
        for (Element profile : children(child(bom, "profiles"), "profile")) {
            if (text(profile, "id").equals("release")) {
                release = profile;
            }
        }
        assertNotNull(release, "flux2-bom has a release profile");
        assertTrue(children(release, "activation").isEmpty(), "the release profile has no activation");
        Set<String> plugins = new TreeSet<>();
        for (Element plugin : children(child(child(release, "build"), "plugins"), "plugin")) {
            plugins.add(text(plugin, "artifactId"));
        }
        assertEquals(Set.of("maven-gpg-plugin", "central-publishing-maven-plugin"), plugins);
        // Sources and javadoc jars for every jar module, reproducible timestamps: in the parent's build.
        Set<String> built = new TreeSet<>();
        for (Element plugin : children(child(child(rootPom, "build"), "plugins"), "plugin")) {
            built.add(text(plugin, "artifactId"));
        }
        assertTrue(built.containsAll(Set.of("maven-source-plugin", "maven-javadoc-plugin")), built::toString);
        assertTrue(
                text(child(rootPom, "properties"), "project.build.outputTimestamp")
                        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"),
                "project.build.outputTimestamp");
    }

    @Test
    void theEmbeddingPageShowsEveryPublishedModuleWithTheBom() throws IOException {
        String page = Files.readString(root.resolve("docs/embedding.md"));
        assertTrue(page.contains("<artifactId>flux2-bom</artifactId>") && page.contains("<scope>import</scope>"));
        for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            String artifactId = text(dependency, "artifactId");
            assertTrue(page.contains("<artifactId>" + artifactId + "</artifactId>"), artifactId);
        }
    }

    private static Element read(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document document = factory.newDocumentBuilder().parse(pom.toFile());
        return document.getDocumentElement();
    }

    /** The first direct child of that name, or an empty element. */
    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? parent.getOwnerDocument().createElement(name) : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        return child(parent, name).getTextContent().trim();
    }

    private static List<String> texts(Element parent, String name) {
        return children(parent, name).stream()
                .map(e -> e.getTextContent().trim())
                .toList();
    }
}
