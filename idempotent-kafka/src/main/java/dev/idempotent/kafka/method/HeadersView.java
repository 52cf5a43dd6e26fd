package dev.idempotent.kafka.method;

import java.util.AbstractMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * The {@code #headers} variable of key expressions: a read-only map view of a record's headers, name to the
 * value of the last header with that name as {@code byte[]}. Lookups by name do not copy the headers.
 */
final class HeadersView extends AbstractMap<String, byte[]> {

	private final Headers headers;

	HeadersView(Headers headers) {
		this.headers = headers;
	}

	@Override
	public byte @Nullable [] get(Object name) {
		if (!(name instanceof String headerName)) {
			return null;
		}
		Header header = this.headers.lastHeader(headerName);
		return (header != null) ? header.value() : null;
	}

	@Override
	public boolean containsKey(Object name) {
		return (name instanceof String headerName) && this.headers.lastHeader(headerName) != null;
	}

	@Override
	public Set<Entry<String, byte[]>> entrySet() {
		Map<String, byte[]> copy = new LinkedHashMap<>();
		for (Header header : this.headers) {
			copy.put(header.key(), header.value());
		}
		return copy.entrySet();
	}

}
