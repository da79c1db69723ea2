// SDK v0.54.4: x/upgrade lives inside the SDK module, with log/v2, store/v2, client/v2 v2.11.0 and
// CometBFT v0.39.4. It registers v053-to-v054 (the v0.53 build halts there): no store changes, RunMigrations
// (auth 5 → 6 on this line).
package main

import (
	dbm "github.com/cosmos/cosmos-db"

	"context"

	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	epochsmodulev1 "cosmossdk.io/api/cosmos/epochs/module/v1"
	"cosmossdk.io/core/appconfig"
	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/server"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	_ "github.com/cosmos/cosmos-sdk/x/epochs"
	epochstypes "github.com/cosmos/cosmos-sdk/x/epochs/types"
	_ "github.com/cosmos/cosmos-sdk/x/upgrade"
	upgradekeeper "github.com/cosmos/cosmos-sdk/x/upgrade/keeper"
	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"
)

type (
	Logger        = log.Logger
	UpgradeKeeper = upgradekeeper.Keeper
)

func nopLogger() Logger { return log.NewNopLogger() }

// UpgradeName is the plan this binary applies: the v0.53 build halts at it.
const UpgradeName = "v053-to-v054"

var (
	lineModules       = []*appv1alpha1.ModuleConfig{{Name: epochstypes.ModuleName, Config: appconfig.WrapAny(&epochsmodulev1.Module{})}}
	lineBeginBlockers = []string{epochstypes.ModuleName}
	lineInitGenesis   = []string{epochstypes.ModuleName}
)

func (app *App) registerUpgrades() {
	app.UpgradeKeeper.SetUpgradeHandler(UpgradeName, func(ctx context.Context, _ upgradetypes.Plan, fromVM module.VersionMap) (module.VersionMap, error) {
		return app.ModuleManager.RunMigrations(ctx, app.Configurator(), fromVM)
	})
}

// newApp and exportApp are the server's constructors, whose shape is this line's (SDK v0.54 dropped the trace
// writer of the earlier lines).
func newApp(logger Logger, db dbm.DB, appOpts servertypes.AppOptions) servertypes.Application {
	return NewApp(logger, appOpts, func(b *runtime.AppBuilder) *runtime.App { return b.Build(db, server.DefaultBaseappOptions(appOpts)...) })
}

func exportApp(Logger, dbm.DB, int64, bool, []string, servertypes.AppOptions, []string) (servertypes.ExportedApp, error) {
	return servertypes.ExportedApp{}, errNoExport
}
