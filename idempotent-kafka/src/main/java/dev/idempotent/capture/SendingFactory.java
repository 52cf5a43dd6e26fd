package dev.idempotent.capture;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.idempotent.output.OutputHeader;
import dev.idempotent.output.StoredOutput;
import org.jspecify.annotations.Nullable;

/**
 * Which producer factory sent an output: the name of its bean, stored with the output as a header that is never sent
 * ({@value #HEADER}), so that a hit sends the output again through the same factory (the same cluster, settings and
 * Kafka transaction). Stateless.
 */
final class SendingFactory {

	/** The stored header that names the factory. */
	static final String HEADER = "idempotent.producer-factory";

	private SendingFactory() {
	}

	/** The stored header naming a factory bean. */
	static OutputHeader header(String beanName) {
		return new OutputHeader(HEADER, beanName.getBytes(StandardCharsets.UTF_8));
	}

	/** The factory bean that sent an output, or {@code null} if the output does not say (stored before it did). */
	static @Nullable String of(StoredOutput output) {
		for (OutputHeader header : output.headers()) {
			if (header.name().equals(HEADER) && header.value() != null) {
				return new String(header.value(), StandardCharsets.UTF_8);
			}
		}
		return null;
	}

	/** The headers to send: the stored ones but this one. */
	static List<OutputHeader> sent(List<OutputHeader> stored) {
		List<OutputHeader> sent = new ArrayList<>(stored.size());
		for (OutputHeader header : stored) {
			if (!header.name().equals(HEADER)) {
				sent.add(header);
			}
		}
		return sent;
	}

}
