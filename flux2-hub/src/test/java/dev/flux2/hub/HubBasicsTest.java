package dev.flux2.hub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Repo ids, the environment's precedence, file-name safety and the bundle file rule. */
class HubBasicsTest {
    @TempDir
    Path tmp;

    @Test
    void repoIdsWithAndWithoutRevision() {
        assertEquals(
                new RepoRef("MarkShark2/flux2-klein-4b-onnx-webgpu-q4", "main"),
                RepoRef.parse("MarkShark2/flux2-klein-4b-onnx-webgpu-q4"));
        RepoRef pinned = RepoRef.parse(ModelNames.DEFAULT_MODEL);
        assertTrue(pinned.isCommit());
        assertEquals("models--MarkShark2--flux2-klein-4b-onnx-webgpu-q4", pinned.cacheFolderName());
        assertEquals("refs/pr/1", RepoRef.parse("a/b@refs/pr/1").revision());
        for (String bad : new String[] {
            "flux2-klein-4b", "a/b/c", "./a/b", "/abs/path", "a/b@", "a/b@../x", "a--x/b", "a/b@x/../y"
        }) {
            assertFalse(RepoRef.isValid(bad), bad);
        }
        assertTrue(new HubModelResolver().accepts("owner/name@v1.0"));
    }

    @Test
    void environmentFollowsHuggingfaceHubPrecedence() throws IOException {
        Path home = tmp.resolve("home");
        HubOptions none = HubOptions.defaults();
        assertEquals(home.resolve(".cache/huggingface/hub"), new HubEnvironment(Map.of(), home).cacheDir(none));
        assertEquals(Path.of("/x/hf/hub"), new HubEnvironment(Map.of("HF_HOME", "/x/hf"), home).cacheDir(none));
        assertEquals(
                Path.of("/x/xdg/huggingface/hub"),
                new HubEnvironment(Map.of("XDG_CACHE_HOME", "/x/xdg"), home).cacheDir(none));
        assertEquals(
                Path.of("/c"), new HubEnvironment(Map.of("HF_HUB_CACHE", "/c", "HF_HOME", "/x"), home).cacheDir(none));
        assertEquals(home.resolve("c"), new HubEnvironment(Map.of("HF_HUB_CACHE", "~/c"), home).cacheDir(none));
        assertEquals(
                Path.of("/o"),
                new HubEnvironment(Map.of("HF_HUB_CACHE", "/c"), home)
                        .cacheDir(HubOptions.builder().cacheDir(Path.of("/o")).build()));

        assertEquals(URI.create("https://huggingface.co"), new HubEnvironment(Map.of(), home).endpoint(none));
        assertEquals(
                URI.create("http://mirror:8080"),
                new HubEnvironment(Map.of("HF_ENDPOINT", "http://mirror:8080/"), home).endpoint(none));

        assertTrue(new HubEnvironment(Map.of("HF_HUB_OFFLINE", "yes"), home).offline(none));
        assertTrue(new HubEnvironment(Map.of("TRANSFORMERS_OFFLINE", "1"), home).offline(none));
        assertFalse(new HubEnvironment(Map.of("HF_HUB_OFFLINE", "0"), home).offline(none));
        assertFalse(new HubEnvironment(Map.of("HF_HUB_OFFLINE", "1"), home)
                .offline(HubOptions.builder().offline(false).build()));

        assertEquals(Optional.empty(), new HubEnvironment(Map.of(), home).token(none));
        Files.createDirectories(home.resolve(".cache/huggingface"));
        Files.writeString(home.resolve(".cache/huggingface/token"), "hf_fromfile\n");
        assertEquals(Optional.of("hf_fromfile"), new HubEnvironment(Map.of(), home).token(none));
        assertEquals(Optional.of("hf_env"), new HubEnvironment(Map.of("HF_TOKEN", " hf_env \n"), home).token(none));
        assertEquals(
                Optional.of("hf_opt"),
                new HubEnvironment(Map.of("HF_TOKEN", "hf_env"), home)
                        .token(HubOptions.builder().token("hf_opt").build()));
        assertFalse(HubOptions.builder().token("hf_secret").build().toString().contains("hf_secret"));
    }

    @Test
    void pathsThatEscapeTheFolderAreRejected() {
        for (String bad : new String[] {
            "../evil.json", "a/../../evil.json", "/etc/passwd", "C:\\x.json", "a\\b.json", "a//b.json", ""
        }) {
            assertThrows(HubException.class, () -> RepoPaths.check(bad), bad);
        }
        RepoPaths.check("tokenizer/tokenizer.json");
        assertEquals(tmp.resolve("a/b.json"), RepoPaths.resolve(tmp, "a/b.json"));
    }

    @Test
    void aBundleNeedsGraphsDataConfigsAndTokenizerFilesOnly() {
        for (String yes : new String[] {
            "flux2-config.json",
            "transformer.onnx",
            "t-00001.onnx_data",
            "model.onnx.data",
            "tokenizer/tokenizer.json",
            "tokenizer/chat_template.jinja",
            "tokenizer/merges.txt"
        }) {
            assertTrue(RepoPaths.isBundleFile(yes), yes);
        }
        for (String no : new String[] {
            "README.md", ".gitattributes", "images/fox.png", "LICENSE", ".cache/x.json", "tokenizer/README.md"
        }) {
            assertFalse(RepoPaths.isBundleFile(no), no);
        }
    }

    @Test
    void etagsAreNormalisedAndUrlsQuotedAsHuggingfaceHubDoes() {
        assertEquals("abc", HubHttp.normalizeEtag("W/\"abc\""));
        assertEquals("abc", HubHttp.normalizeEtag("\"abc\""));
        assertEquals("refs%2Fpr%2F1", HubHttp.quote("refs/pr/1", false));
        assertEquals("tokenizer/a%20b.json", HubHttp.quote("tokenizer/a b.json", true));
    }

    @Test
    void theShippedPinListHasTheDefaultBundle() {
        RepoRef ref = RepoRef.parse(ModelNames.DEFAULT_MODEL);
        KnownBundles.KnownBundle b =
                KnownBundles.shipped().find(ref.repo(), ref.revision()).orElseThrow();
        assertEquals(18, b.files().size());
        assertEquals(
                5_225_022_190L,
                b.files().values().stream()
                        .mapToLong(KnownBundles.KnownFile::bytes)
                        .sum());
        b.files().keySet().forEach(p -> assertTrue(RepoPaths.isBundleFile(p), p));
    }
}
