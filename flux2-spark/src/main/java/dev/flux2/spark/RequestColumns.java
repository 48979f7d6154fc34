package dev.flux2.spark;

import java.util.List;

/**
 * The columns of the requests {@link Flux2Batch#generate} reads. {@code id} and {@code prompt} are required; every
 * other column is optional, and a null value leaves that parameter unset (the model's default, or for the seed the
 * {@link RowId#derivedSeed() seed derived from the id}). Columns not listed here are ignored (with a warning).
 *
 * <table>
 * <caption>Request columns</caption>
 * <tr><th>Column</th><th>Type</th><th>Meaning</th></tr>
 * <tr><td>{@code id}</td><td>string</td><td>unique; the image is {@code <output>/images/<id>.png} (see
 *     {@link RowId})</td></tr>
 * <tr><td>{@code prompt}</td><td>string</td><td>the prompt, verbatim</td></tr>
 * <tr><td>{@code seed}</td><td>integer or string</td><td>noise seed</td></tr>
 * <tr><td>{@code width}, {@code height}</td><td>integer or string</td><td>pixels, multiples of 16</td></tr>
 * <tr><td>{@code steps}</td><td>integer or string</td><td>denoising steps</td></tr>
 * <tr><td>{@code guidance}</td><td>number or string</td><td>guidance scale</td></tr>
 * <tr><td>{@code init_image}</td><td>string</td><td>img2img source: a path or URI Hadoop's {@code FileSystem}
 *     reads</td></tr>
 * <tr><td>{@code strength}</td><td>number or string</td><td>img2img strength in (0, 1]</td></tr>
 * <tr><td>{@code reference_images}</td><td>array of strings, or a string of comma-separated paths</td><td>reference
 *     images, in order</td></tr>
 * </table>
 *
 * <p>Strings are accepted for the numeric columns because CSV files have no types; a string that does not parse
 * fails its row, naming the column.
 */
public final class RequestColumns {
    /** Required: the row's unique id, which names its image. */
    public static final String ID = "id";
    /** Required: the prompt. */
    public static final String PROMPT = "prompt";
    /** Optional: the noise seed. */
    public static final String SEED = "seed";
    /** Optional: the width in pixels. */
    public static final String WIDTH = "width";
    /** Optional: the height in pixels. */
    public static final String HEIGHT = "height";
    /** Optional: the number of denoising steps. */
    public static final String STEPS = "steps";
    /** Optional: the guidance scale. */
    public static final String GUIDANCE = "guidance";
    /** Optional: the img2img source image. */
    public static final String INIT_IMAGE = "init_image";
    /** Optional: the img2img strength. */
    public static final String STRENGTH = "strength";
    /** Optional: reference images. */
    public static final String REFERENCE_IMAGES = "reference_images";

    /** Every column, in this order. */
    public static final List<String> ALL =
            List.of(ID, PROMPT, SEED, WIDTH, HEIGHT, STEPS, GUIDANCE, INIT_IMAGE, STRENGTH, REFERENCE_IMAGES);

    private RequestColumns() {}
}
