package dev.idempotent.output;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ByteArrayInputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The encoding of an output's headers in one column: a version byte (1), the number of headers, then per header its
 * name (modified UTF-8, as {@link DataOutputStream#writeUTF}) and its value (length, -1 for null, then the bytes).
 * Stateless.
 */
final class HeaderCodec {

	private static final int VERSION = 1;

	private HeaderCodec() {
	}

	static byte @Nullable [] encode(List<OutputHeader> headers) {
		if (headers.isEmpty()) {
			return null;
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeByte(VERSION);
			out.writeInt(headers.size());
			for (OutputHeader header : headers) {
				out.writeUTF(header.name());
				byte[] value = header.value();
				out.writeInt((value != null) ? value.length : -1);
				if (value != null) {
					out.write(value);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return bytes.toByteArray();
	}

	static List<OutputHeader> decode(byte @Nullable [] encoded) {
		if (encoded == null || encoded.length == 0) {
			return List.of();
		}
		try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
			int version = in.readByte();
			if (version != VERSION) {
				throw new IllegalStateException("Unknown encoding " + version + " of stored output headers");
			}
			int count = in.readInt();
			List<OutputHeader> headers = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				String name = in.readUTF();
				int length = in.readInt();
				headers.add(new OutputHeader(name, (length < 0) ? null : in.readNBytes(length)));
			}
			return headers;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
