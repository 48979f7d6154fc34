package dev.flux2.math;

import java.util.Objects;

/**
 * Ordinary least squares with a small ridge, solved through the normal equations and a Cholesky factorisation in
 * double: {@code W = argmin ‖X·W − Y‖² + λ‖W‖²} for a few hundred unknowns per output. Used to fit the live-preview
 * projection of the latent channels to RGB; stateless.
 */
public final class LeastSquares {
    private LeastSquares() {}

    /**
     * @param rows samples
     * @param inputs features per sample
     * @param x {@code rows·inputs} values, row-major
     * @param outputs targets per sample
     * @param y {@code rows·outputs} values, row-major
     * @param ridge λ relative to the mean diagonal of XᵀX (1e-6 keeps a rank-deficient system solvable)
     * @return the {@code inputs·outputs} weights, row-major (input, output)
     * @throws IllegalArgumentException when the lengths do not match or the system is not positive definite
     */
    public static double[] solve(int rows, int inputs, float[] x, int outputs, float[] y, double ridge) {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(y, "y");
        if ((long) rows * inputs != x.length || (long) rows * outputs != y.length) {
            throw new IllegalArgumentException("expected " + rows + "x" + inputs + " inputs and " + rows + "x" + outputs
                    + " targets, got " + x.length + " and " + y.length + " values");
        }
        double[] a = new double[inputs * inputs];
        double[] b = new double[inputs * outputs];
        double[] row = new double[inputs];
        for (int r = 0; r < rows; r++) {
            for (int i = 0; i < inputs; i++) {
                row[i] = x[r * inputs + i];
            }
            for (int i = 0; i < inputs; i++) {
                double ri = row[i];
                if (ri == 0) {
                    continue;
                }
                int base = i * inputs;
                for (int j = i; j < inputs; j++) {
                    a[base + j] += ri * row[j];
                }
                for (int o = 0; o < outputs; o++) {
                    b[i * outputs + o] += ri * y[r * outputs + o];
                }
            }
        }
        double trace = 0;
        for (int i = 0; i < inputs; i++) {
            trace += a[i * inputs + i];
        }
        double lambda = ridge * Math.max(trace / inputs, Double.MIN_NORMAL);
        for (int i = 0; i < inputs; i++) {
            a[i * inputs + i] += lambda;
            for (int j = 0; j < i; j++) {
                a[i * inputs + j] = a[j * inputs + i];
            }
        }
        choleskyInPlace(a, inputs);
        // forward then backward substitution for each output column
        double[] w = new double[inputs * outputs];
        double[] col = new double[inputs];
        for (int o = 0; o < outputs; o++) {
            for (int i = 0; i < inputs; i++) {
                double s = b[i * outputs + o];
                for (int k = 0; k < i; k++) {
                    s -= a[i * inputs + k] * col[k];
                }
                col[i] = s / a[i * inputs + i];
            }
            for (int i = inputs - 1; i >= 0; i--) {
                double s = col[i];
                for (int k = i + 1; k < inputs; k++) {
                    s -= a[k * inputs + i] * w[k * outputs + o];
                }
                w[i * outputs + o] = s / a[i * inputs + i];
            }
        }
        return w;
    }

    /** Lower-triangular L with A = L·Lᵀ, written over the lower triangle of a. */
    private static void choleskyInPlace(double[] a, int n) {
        for (int j = 0; j < n; j++) {
            double d = a[j * n + j];
            for (int k = 0; k < j; k++) {
                d -= a[j * n + k] * a[j * n + k];
            }
            if (!(d > 0)) {
                throw new IllegalArgumentException("the normal equations are not positive definite at column " + j);
            }
            double l = Math.sqrt(d);
            a[j * n + j] = l;
            for (int i = j + 1; i < n; i++) {
                double s = a[i * n + j];
                for (int k = 0; k < j; k++) {
                    s -= a[i * n + k] * a[j * n + k];
                }
                a[i * n + j] = s / l;
            }
        }
    }
}
