/**
 * PostgreSQL 15's pg_proc OIDs and comments (pg_proc.dat, pg_description) for the names of
 * paxd's function library, every overload of each: ./pg-proc.ts gives a library signature
 * PostgreSQL's OID where PostgreSQL has the same name and argument types, so that drivers see
 * the OIDs and comments they know (pgjdbc's getFunctions prints `proname_oid` and the comment;
 * `\df+` shows it). One row per line, the comment last (it may hold `|`):
 *
 *   oid|proname|proargtypes|description
 */
export const PG_PROCS = `
1601|acos|701|arccosine
2466|acosh|701|inverse hyperbolic cosine
1181|age|28|age of a transaction ID, in transactions before current transaction
1199|age|1184 1184|date difference preserving months and years
1386|age|1184|date difference from today preserving months and years
2058|age|1114 1114|date difference preserving months and years
2059|age|1114|date difference from today preserving months and years
378|array_append|5078 5077|append element onto end of array
383|array_cat|5078 5078|implementation of || operator
2176|array_length|2277 23|array length
2091|array_lower|2277 23|array lower dimension
748|array_ndims|2277|number of array dimensions
3277|array_position|5078 5077|returns an offset of value in array
3278|array_position|5078 5077 23|returns an offset of value in array with start index
3279|array_positions|5078 5077|returns an array of offsets of some value in array
379|array_prepend|5077 5078|prepend element onto front of array
384|array_to_string|2277 25 25|concatenate array elements, using delimiter and null string, into text
395|array_to_string|2277 25|concatenate array elements, using delimiter, into text
2092|array_upper|2277 23|array upper dimension
1620|ascii|25|convert first char to int4
1600|asin|701|arcsine
2465|asinh|701|inverse hyperbolic sine
1602|atan|701|arctangent
1603|atan2|701 701|arctangent, two arguments
2467|atanh|701|inverse hyperbolic tangent
1810|bit_length|17|length in bits
1811|bit_length|25|length in bits
1812|bit_length|1560|length in bits
3179|cardinality|2277|array cardinality
1345|cbrt|701|cube root
1621|chr|23|convert int4 to char
1216|col_description|26 23|get description for table column
3059|concat_ws|25 2276|concatenate values with separators
1605|cos|701|cosine
2736|cosd|701|cosine, degrees
2463|cosh|701|hyperbolic cosine
1607|cot|701|cotangent
861|current_database||name of the current database
1402|current_schema||current schema name
1403|current_schemas|16|current schema search list
2077|current_setting|25|SHOW X as a function
3294|current_setting|25 16|SHOW X as a function, optionally no error for missing variable
6177|date_bin|1186 1114 1114|bin timestamp into specified interval
6178|date_bin|1186 1184 1184|bin timestamp with time zone into specified interval
1608|degrees|701|radians to degrees
1973|div|1700 1700|trunc(x/y)
1347|exp|701|natural exponential (e^x)
1732|exp|1700|natural exponential (e^x)
1376|factorial|20|factorial
3539|format|25 2276|format text message
3540|format|25|format text message
1081|format_type|26 23|format a type oid and atttypmod to canonical SQL
5044|gcd|23 23|greatest common divisor
5045|gcd|20 20|greatest common divisor
5048|gcd|1700 1700|greatest common divisor
938|generate_series|1114 1114 1186|non-persistent series generator
939|generate_series|1184 1184 1186|non-persistent series generator
1066|generate_series|23 23 23|non-persistent series generator
1067|generate_series|23 23|non-persistent series generator
1068|generate_series|20 20 20|non-persistent series generator
1069|generate_series|20 20|non-persistent series generator
3259|generate_series|1700 1700 1700|non-persistent series generator
3260|generate_series|1700 1700|non-persistent series generator
1191|generate_subscripts|2277 23 16|array subscripts generator
1192|generate_subscripts|2277 23|array subscripts generator
2250|has_database_privilege|19 25 25|user privilege on database by username, database name
2251|has_database_privilege|19 26 25|user privilege on database by username, database oid
2252|has_database_privilege|26 25 25|user privilege on database by user oid, database name
2253|has_database_privilege|26 26 25|user privilege on database by user oid, database oid
2254|has_database_privilege|25 25|current user privilege on database by database name
2255|has_database_privilege|26 25|current user privilege on database by database oid
2268|has_schema_privilege|19 25 25|user privilege on schema by username, schema name
2269|has_schema_privilege|19 26 25|user privilege on schema by username, schema oid
2270|has_schema_privilege|26 25 25|user privilege on schema by user oid, schema name
2271|has_schema_privilege|26 26 25|user privilege on schema by user oid, schema oid
2272|has_schema_privilege|25 25|current user privilege on schema by schema name
2273|has_schema_privilege|26 25|current user privilege on schema by schema oid
1922|has_table_privilege|19 25 25|user privilege on relation by username, rel name
1923|has_table_privilege|19 26 25|user privilege on relation by username, rel oid
1924|has_table_privilege|26 25 25|user privilege on relation by user oid, rel name
1925|has_table_privilege|26 26 25|user privilege on relation by user oid, rel oid
1926|has_table_privilege|25 25|current user privilege on relation by rel name
1927|has_table_privilege|26 25|current user privilege on relation by rel oid
872|initcap|25|capitalize each word
1373|isfinite|1082|finite date?
1389|isfinite|1184|finite timestamp?
1390|isfinite|1186|finite interval?
2048|isfinite|1114|finite timestamp?
3956|json_array_length|114|length of json array
3198|json_build_array|2276|build a json array from any inputs
3199|json_build_array||build an empty json array
3200|json_build_object|2276|build a json object from pairwise key/value inputs
3201|json_build_object||build an empty json object
3951|json_extract_path|114 1009|get value from json with path elements
3953|json_extract_path_text|114 1009|get value from json as text with path elements
3261|json_strip_nulls|114|remove object fields with null values from json
3968|json_typeof|114|get the type of a json value
3207|jsonb_array_length|3802|length of jsonb array
3271|jsonb_build_array|2276|build a jsonb array from any inputs
3272|jsonb_build_array||build an empty jsonb array
3273|jsonb_build_object|2276|build a jsonb object from pairwise key/value inputs
3274|jsonb_build_object||build an empty jsonb object
4044|jsonb_cmp|3802 3802|less-equal-greater
3301|jsonb_concat|3802 3802|implementation of || operator
4050|jsonb_contained|3802 3802|implementation of <@ operator
4046|jsonb_contains|3802 3802|implementation of @> operator
3304|jsonb_delete_path|3802 1009|implementation of #- operator
4043|jsonb_eq|3802 3802|implementation of = operator
4047|jsonb_exists|3802 25|implementation of ? operator
4049|jsonb_exists_all|3802 1009|implementation of ?& operator
4048|jsonb_exists_any|3802 1009|implementation of ?| operator
3217|jsonb_extract_path|3802 1009|get value from jsonb with path elements
3940|jsonb_extract_path_text|3802 1009|get value from jsonb as text with path elements
3579|jsonb_insert|3802 1009 3802 16|Insert value into a jsonb
3306|jsonb_pretty|3802|Indented text from jsonb
3305|jsonb_set|3802 1009 3802 16|Set part of a jsonb
3262|jsonb_strip_nulls|3802|remove object fields with null values from jsonb
3210|jsonb_typeof|3802|get the type of a jsonb value
1295|justify_days|1186|promote groups of 30 days to numbers of months
1175|justify_hours|1186|promote groups of 24 hours to numbers of days
2711|justify_interval|1186|promote groups of 24 hours to numbers of days and promote groups of 30 days to numbers of months
5046|lcm|23 23|least common multiple
5047|lcm|20 20|least common multiple
5049|lcm|1700 1700|least common multiple
3060|left|25 23|extract the first n characters
1341|ln|701|natural logarithm
1734|ln|1700|natural logarithm
1340|log|701|base 10 logarithm
1736|log|1700 1700|logarithm base m of n
1741|log|1700|base 10 logarithm
1194|log10|701|base 10 logarithm
1481|log10|1700|base 10 logarithm
3846|make_date|23 23 23|construct date
3464|make_interval|23 23 23 23 23 23 701|construct interval
3847|make_time|23 23 701|construct time
3461|make_timestamp|23 23 23 23 23 701|construct timestamp
3462|make_timestamptz|23 23 23 23 23 701|construct timestamp with time zone
3463|make_timestamptz|23 23 23 23 23 701 25|construct timestamp with time zone
2311|md5|25|MD5 hash
2321|md5|17|MD5 hash
5042|min_scale|1700|minimum scale needed to represent the value
1215|obj_description|26 19|get description for object id and catalog name
1348|obj_description|26|deprecated, use two-argument form instead
749|overlay|17 17 23 23|substitute portion of string
752|overlay|17 17 23|substitute portion of string
1404|overlay|25 25 23 23|substitute portion of string
1405|overlay|25 25 23|substitute portion of string
3030|overlay|1560 1560 23 23|substitute portion of bitstring
3031|overlay|1560 1560 23|substitute portion of bitstring
2026|pg_backend_pid||statistics: current backend PID
1597|pg_encoding_to_char|23|convert encoding id to encoding name
2081|pg_function_is_visible|26|is function visible in search path?
1387|pg_get_constraintdef|26|constraint description
2508|pg_get_constraintdef|26 16|constraint description with pretty-print option
1716|pg_get_expr|194 26|deparse an encoded expression
2509|pg_get_expr|194 26 16|deparse an encoded expression with pretty-print option
2162|pg_get_function_arguments|26|argument list of a function
2232|pg_get_function_identity_arguments|26|identity argument list of a function
2165|pg_get_function_result|26|result type of a function
1643|pg_get_indexdef|26|index description
2507|pg_get_indexdef|26 23 16|index description (full create statement or single expression) with pretty-print option
1642|pg_get_userbyid|26|role name by OID (with fallback)
1640|pg_get_viewdef|25|select statement of a view
1641|pg_get_viewdef|26|select statement of a view
2505|pg_get_viewdef|25 16|select statement of a view with pretty-print option
2506|pg_get_viewdef|26 16|select statement of a view with pretty-print option
3159|pg_get_viewdef|26 23|select statement of a view with pretty-printing and specified line wrapping
2998|pg_indexes_size|2205|disk space usage for all indexes attached to the specified table
2288|pg_size_pretty|20|convert a long int to a human readable text using size units
3166|pg_size_pretty|1700|convert a numeric to a human readable text using size units
2079|pg_table_is_visible|26|is table visible in search path?
2997|pg_table_size|2205|disk space usage for the specified table, including TOAST, free space and visibility map
2286|pg_total_relation_size|2205|total disk space usage for the specified table and associated indexes
2080|pg_type_is_visible|26|is type visible in search path?
1619|pg_typeof|2276|type of the argument
1610|pi||PI
1282|quote_ident|25|quote an identifier for usage in a querystring
1283|quote_literal|25|quote a literal for usage in a querystring
1285|quote_literal|2283|quote a data value for usage in a querystring
1289|quote_nullable|25|quote a possibly-null literal for usage in a querystring
1290|quote_nullable|2283|quote a possibly-null data value for usage in a querystring
1609|radians|701|degrees to radians
1598|random||random value
2218|regclassin|2275|I/O
2219|regclassout|2205|I/O
6254|regexp_count|25 25|count regexp matches
6255|regexp_count|25 25 23|count regexp matches
6256|regexp_count|25 25 23 25|count regexp matches
6257|regexp_instr|25 25|position of regexp match
6258|regexp_instr|25 25 23|position of regexp match
6259|regexp_instr|25 25 23 23|position of regexp match
6260|regexp_instr|25 25 23 23 23|position of regexp match
6261|regexp_instr|25 25 23 23 23 25|position of regexp match
6262|regexp_instr|25 25 23 23 23 25 23|position of regexp match
6263|regexp_like|25 25|test for regexp match
6264|regexp_like|25 25 25|test for regexp match
3396|regexp_match|25 25|find first match for regexp
3397|regexp_match|25 25 25|find first match for regexp
2763|regexp_matches|25 25|find match(es) for regexp
2764|regexp_matches|25 25 25|find match(es) for regexp
2284|regexp_replace|25 25 25|replace text using regexp
2285|regexp_replace|25 25 25 25|replace text using regexp
6251|regexp_replace|25 25 25 23 23 25|replace text using regexp
6252|regexp_replace|25 25 25 23 23|replace text using regexp
6253|regexp_replace|25 25 25 23|replace text using regexp
2765|regexp_split_to_table|25 25|split string by pattern
2766|regexp_split_to_table|25 25 25|split string by pattern
6265|regexp_substr|25 25|extract substring that matches regexp
6266|regexp_substr|25 25 23|extract substring that matches regexp
6267|regexp_substr|25 25 23 23|extract substring that matches regexp
6268|regexp_substr|25 25 23 23 25|extract substring that matches regexp
6269|regexp_substr|25 25 23 23 25 23|extract substring that matches regexp
4084|regnamespacein|2275|I/O
4085|regnamespaceout|4089|I/O
44|regprocin|2275|I/O
45|regprocout|24|I/O
4098|regrolein|2275|I/O
4092|regroleout|4096|I/O
2220|regtypein|2275|I/O
2221|regtypeout|2206|I/O
2087|replace|25 25 25|replace all occurrences in string of old_substr with new_substr
3062|reverse|25|reverse text
3061|right|25 23|extract the last n characters
3281|scale|1700|number of decimal digits in the fractional part
2078|set_config|25 25 16|SET X as a function
1599|setseed|701|set random seed
1993|shobj_description|26 19|get description for object id and shared catalog name
1604|sin|701|sine
2735|sind|701|sine, degrees
2462|sinh|701|hyperbolic sine
2088|split_part|25 25 23|split string by field_sep and return field_num
3696|starts_with|25 25|implementation of ^@ operator
376|string_to_array|25 25 25|split delimited text, with null string
394|string_to_array|25 25|split delimited text
1606|tan|701|tangent
2464|tanh|701|hyperbolic tangent
1768|to_char|1186 25|format interval to text
1770|to_char|1184 25|format timestamp with time zone to text
1772|to_char|1700 25|format numeric to text
1773|to_char|23 25|format int4 to text
1774|to_char|20 25|format int8 to text
1775|to_char|700 25|format float4 to text
1776|to_char|701 25|format float8 to text
2049|to_char|1114 25|format timestamp to text
1780|to_date|25 25|convert text to date
2089|to_hex|23|convert int4 number to hex
2090|to_hex|20|convert int8 number to hex
3176|to_json|2283|map input to json
3787|to_jsonb|2283|map input to jsonb
1777|to_number|25 25|convert text to numeric
1158|to_timestamp|701|convert UNIX epoch to timestamptz
1778|to_timestamp|25 25|convert text to timestamp with time zone
878|translate|25 25 25|map a set of characters appearing in string
5043|trim_scale|1700|numeric with minimum scale needed to represent the value
2943|txid_current||get current transaction ID
1293|unnest|4537|expand multirange to set of ranges
2331|unnest|2277|expand array to set of rows
3322|unnest|3614|expand tsvector to set of rows
89|version||PostgreSQL version string
320|width_bucket|701 701 701 23|bucket number of operand in equal-width histogram
2170|width_bucket|1700 1700 1700 23|bucket number of operand in equal-width histogram
3218|width_bucket|5077 5078|bucket number of operand given a sorted array of bucket lower bounds
`;
