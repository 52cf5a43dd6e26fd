package dev.idempotent.it.stacks;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/** A value deserializer that cannot read values starting with {@code poison}, as a JSON one cannot read bad JSON. */
public class StrictStringDeserializer implements Deserializer<String> {

	@Override
	public String deserialize(String topic, byte[] data) {
		String value = new String(data, StandardCharsets.UTF_8);
		if (value.startsWith("poison")) {
			throw new SerializationException("Cannot read '" + value + "' from " + topic);
		}
		return value;
	}

}
