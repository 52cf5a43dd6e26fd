/**
 * Ahead-of-time processing (Spring AOT, GraalVM native images): the runtime hints of the library, and of the
 * application's {@link dev.idempotent.kafka.IdempotentListener} beans. Registered in {@code META-INF/spring/aot.factories}.
 */
@NullMarked
package dev.idempotent.aot;

import org.jspecify.annotations.NullMarked;
