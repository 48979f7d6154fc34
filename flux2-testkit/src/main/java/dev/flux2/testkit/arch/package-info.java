/** The architecture tests' shared rules: {@link dev.flux2.testkit.arch.ArchitectureRules}. */
package dev.flux2.testkit.arch;
