-- Puzzle index of the invented game (fixture written for the tests, Lua like the wiki's data modules)
return {
	-- Normal Puzzles
	{number = "014", name = "Counting Candles", ["type"] = "Write Answer", location = "Bakery", chapter = 1, picarats = 30,
		uk = {number = "014", name = "Counting Candles (UK)", ["type"] = "Write Answer", picarats = 35}},
	{number = "027", name = "The Crooked Fence", ["type"] = "Select", location = "Lane {east}", chapter = 2, picarats = 40},
	{number = "031", name = "The Missing Key", ["type"] = "Write Answer", picarats = 20, mandatory = true},
	--[[ {number = "099", name = "Commented Out", picarats = 99}, ]]
}
